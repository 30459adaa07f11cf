//===- Diagnostics.cpp - user errors vs. compiler bugs --------------------===//
// A malformed DSL program is reported as ProgramError naming the user's file:line:col
// (the format compilers use, so editors can jump to it). Anything the MLIR verifier
// rejects after the DSL's own checks passed is a bug in tile and says so.
#include "State.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

namespace tile::detail {

void fail(const SrcLoc &loc, const std::string &what) {
  throw ProgramError(SourceLine{loc.file_name(), loc.line(), loc.column()}, what);
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

  for (const Diag &d : diags) {
    if (d.msg.find("dominate") == std::string::npos) continue;
    // Values leaking out of a loop or branch body are normally caught when used (see
    // use()); this is the safety net, reported as the user's error at the using op.
    if (auto fl = mlir::dyn_cast<mlir::FileLineColLoc>(d.loc))
      throw ProgramError(SourceLine{fl.getFilename().str(), fl.getLine(), fl.getColumn()},
                         "a value computed inside a loop or branch body is used outside it; "
                         "return it from the body instead");
  }
  std::string all;
  for (const Diag &d : diags) {
    std::string l;
    llvm::raw_string_ostream os(l);
    d.loc.print(os);
    all += (all.empty() ? "" : "; ") + d.msg + " at " + l;
  }
  throw InternalError("tile internal error: the traced IR of kernel '" + kernelName + "' does not verify: " + all +
                      " (this is a bug; please report)");
}

} // namespace tile::detail
