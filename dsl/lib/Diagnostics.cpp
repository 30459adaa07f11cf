//===- Diagnostics.cpp - user errors vs. compiler bugs --------------------===//
// A malformed DSL program is reported as ProgramError naming the user's file:line:col
// (the format compilers use, so editors can jump to it). Anything the MLIR verifier
// rejects after the DSL's own checks passed is a bug in tile and says so (InternalError):
// the two are told apart by type, never by a message's text.
#include "State.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

namespace tile::detail {

template <class Derived> Derived &ErrorStream<Derived>::operator<<(mlir::Type t) { return *this << typeStr(t); }
template class ErrorStream<ProgramErrorStream>;
template class ErrorStream<InternalErrorStream>;

// A statement `fail(loc) << a << b;` whose operands threw would run this during unwinding;
// the operands here are strings and numbers, so that is only bad_alloc, and terminates.
ProgramErrorStream::~ProgramErrorStream() noexcept(false) { throw ProgramError(where_, text_); }

InternalErrorStream::~InternalErrorStream() noexcept(false) {
  throw InternalError("tile internal error: " + text_ + " (this is a bug; please report)");
}

std::string shapeStr(llvm::ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

static std::string elemStr(mlir::Type e) {
  if (auto p = mlir::dyn_cast<mlir::tile::PtrType>(e)) return "ptr<" + elemStr(p.getPointeeType()) + ">";
  if (auto d = fromMlir(e)) return dtypeName(*d);
  std::string s;
  llvm::raw_string_ostream os(s);
  e.print(os);
  return s;
}

std::string typeStr(mlir::Type t) {
  std::string s = elemStr(mlir::getElementTypeOrSelf(t));
  if (isTensorType(t)) s += shapeStr(shapeOf(t));
  return s;
}

/// The first op (in walk order) with an operand whose definition does not dominate it.
static mlir::Operation *firstUseNotDominated(mlir::ModuleOp module) {
  mlir::DominanceInfo dominance(module);
  mlir::Operation *found = nullptr;
  module.walk([&](mlir::Operation *op) {
    for (mlir::Value operand : op->getOperands())
      if (!dominance.properlyDominates(operand, op)) {
        found = op;
        return mlir::WalkResult::interrupt();
      }
    return mlir::WalkResult::advance();
  });
  return found;
}

void verifyTracedModule(mlir::ModuleOp module, const std::string &kernelName) {
  struct Diag {
    std::string msg;
    mlir::Location loc;
  };
  std::vector<Diag> diags;
  mlir::LogicalResult ok = mlir::success();
  {
    // Capture instead of printing to stderr: the caller decides whose fault it is.
    mlir::ScopedDiagnosticHandler handler(module.getContext(), [&](mlir::Diagnostic &d) {
      diags.push_back({d.str(), d.getLocation()});
      return mlir::success();
    });
    ok = mlir::verify(module);
  }
  if (mlir::succeeded(ok)) return;

  // Values leaking out of a loop or branch body are normally caught when used (see use());
  // this is the safety net, reported as the user's error at the using op. Decided by asking
  // dominance itself, not by reading the verifier's wording.
  if (mlir::Operation *user = firstUseNotDominated(module))
    if (auto fl = mlir::dyn_cast<mlir::FileLineColLoc>(user->getLoc()))
      ProgramErrorStream(SourceLine{fl.getFilename().str(), fl.getLine(), fl.getColumn()})
          << "a value computed inside a loop or branch body is used outside it; return it from the body instead";
  InternalErrorStream failure;
  failure << "the traced IR of kernel '" << kernelName << "' does not verify: ";
  for (size_t i = 0; i < diags.size(); ++i) {
    std::string l;
    llvm::raw_string_ostream os(l);
    diags[i].loc.print(os);
    failure << (i ? "; " : "") << diags[i].msg << " at " << l;
  }
}

} // namespace tile::detail
