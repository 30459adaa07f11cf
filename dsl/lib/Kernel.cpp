//===- Kernel.cpp - KernelBase: definition and tracing ----------------------===//
// Tracing builds `func.func @<name>` in a fresh module of the compiler's process-wide
// context and runs the user's lambda once with the builder inside the function body.
#include "KernelImpl.h"
#include "State.h"

#include "tile/Compiler.h"
#include "tile/runtime/EnvRegistry.h"
#include "tile/runtime/Hash.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace tile {

using namespace detail;

/// The most pipeline stages a launch may ask for (each is one more ring buffer per load).
static constexpr int kMaxStages = 8;

KernelBase::KernelBase(std::string name, std::vector<ParamDesc> params, Body body, std::source_location loc)
    : impl_(std::make_shared<Impl>()) {
  // The name becomes the PTX entry symbol: keep it a C identifier.
  bool ok = !name.empty() && !(name[0] >= '0' && name[0] <= '9');
  for (char c : name) ok &= (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'));
  if (!ok) fail(loc) << "tile::kernel: the name '" << name << "' must be a C identifier (letters, digits, _)";
  impl_->name = std::move(name);
  impl_->params = std::move(params);
  impl_->body = std::move(body);
  impl_->loc = loc;
  impl_->nameHash = tile::rt::fnv1a64(impl_->name);
}

const std::string &KernelBase::name() const { return impl_->name; }
const std::vector<ParamDesc> &KernelBase::params() const { return impl_->params; }

namespace detail {
std::recursive_mutex &compilerMutex() {
  static std::recursive_mutex mu;
  return mu;
}

std::string printModule(mlir::ModuleOp m, bool debugInfo) {
  std::string out;
  llvm::raw_string_ostream os(out);
  mlir::OpPrintingFlags flags;
  if (debugInfo) flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  m->print(os, flags);
  return out;
}
} // namespace detail

/// The DSL's spelling of a parameter kind, for messages.
static const char *kindName(ArgKind k) {
  switch (k) {
  case ArgKind::Ptr: return "a Ptr<T>";
  case ArgKind::I32: return "an I32";
  case ArgKind::I64: return "an I64";
  case ArgKind::F32: return "an F32";
  case ArgKind::F16: return "an F16";
  case ArgKind::BF16: return "a BF16";
  case ArgKind::I1: return "an I1";
  case ArgKind::Const: return "a Const<T>";
  case ArgKind::Desc: return "a TensorDesc<T, R>";
  }
  return "an unknown kind";
}

static mlir::Type paramType(mlir::MLIRContext *ctx, const ParamDesc &p) {
  switch (p.kind) {
  case ArgKind::Ptr: return mlir::tile::PtrType::get(ctx, toMlir(ctx, p.dtype));
  case ArgKind::I32: return mlir::IntegerType::get(ctx, 32);
  case ArgKind::I64: return mlir::IntegerType::get(ctx, 64);
  case ArgKind::F32: return mlir::Float32Type::get(ctx);
  case ArgKind::F16: return mlir::Float16Type::get(ctx);
  case ArgKind::BF16: return mlir::BFloat16Type::get(ctx);
  case ArgKind::I1: return mlir::IntegerType::get(ctx, 1);
  case ArgKind::Desc: return mlir::tile::TensorDescType::get(ctx, toMlir(ctx, p.dtype), unsigned(p.rank));
  case ArgKind::Const: break;
  }
  return {};
}

mlir::OwningOpRef<mlir::ModuleOp> KernelBase::Impl::traceModule(const Specialization &spec) const {
  if (spec.args.size() != params.size())
    fail(loc) << "kernel '" << name << "' has " << params.size() << " parameters, the specialisation gives "
              << spec.args.size();
  for (size_t i = 0; i < params.size(); ++i)
    if (spec.args[i].kind != params[i].kind)
      fail(loc) << "kernel '" << name << "': parameter " << i << " is " << kindName(params[i].kind)
                << ", the specialisation gives " << kindName(spec.args[i].kind);
  int w = spec.numWarps;
  if (w < 1 || w > 32 || (w & (w - 1)))
    fail(loc) << "kernel '" << name << "': num_warps must be a power of two from 1 to 32, got " << w;
  if (spec.numStages < 0 || spec.numStages > kMaxStages)
    fail(loc) << "kernel '" << name << "': num_stages must be 1.." << kMaxStages << " (or 0: the default), got "
              << spec.numStages;

  mlir::MLIRContext &ctx = compiler::context();
  mlir::Location defLoc = toLoc(&ctx, loc);
  mlir::OwningOpRef<mlir::ModuleOp> module(mlir::ModuleOp::create(defLoc));
  TraceState state(*module, name);
  // Installed before the parameters are wrapped: every handle carries the trace's id.
  TraceScope scope(state);
  mlir::OpBuilder &b = state.builder;
  b.setInsertionPointToEnd(module->getBody());

  llvm::SmallVector<mlir::Type> argTypes;
  for (const ParamDesc &p : params)
    if (p.kind != ArgKind::Const) argTypes.push_back(paramType(&ctx, p));
  auto func = mlir::func::FuncOp::create(b, defLoc, name, b.getFunctionType(argTypes, {}));
  func->setAttr(mlir::tile::kKernelAttr, b.getUnitAttr());
  mlir::tile::setKernelNumWarps(func, unsigned(w));
  if (spec.numStages > 0) func->setAttr(mlir::tile::kNumStagesAttr, b.getI32IntegerAttr(spec.numStages));
  mlir::Block *entry = func.addEntryBlock();

  std::vector<Value> args(params.size());
  for (size_t i = 0, k = 0; i < params.size(); ++i) {
    if (params[i].kind == ArgKind::Const) continue;
    // Divisibility by 16 (Triton's specialisation) lets the compiler vectorise accesses.
    if (spec.args[i].div16 && !carriesNoFacts(params[i].kind))
      func.setArgAttr(k, mlir::tile::kDivisibilityAttr, b.getI32IntegerAttr(16));
    args[i] = wrap(entry->getArgument(k++));
  }

  b.setInsertionPointToEnd(entry);
  // An integer specialised as equal to 1 is the constant 1 in the body (Triton does the
  // same): unit strides make addresses provably contiguous. The argument stays in the
  // signature, so the launch ABI does not change.
  for (size_t i = 0; i < params.size(); ++i)
    if (spec.args[i].one && (params[i].kind == ArgKind::I32 || params[i].kind == ArgKind::I64))
      args[i] = wrap(mlir::arith::ConstantOp::create(b, defLoc, b.getIntegerAttr(paramType(&ctx, params[i]), 1)));
  body(args, spec);
  b.setInsertionPointToEnd(entry);
  mlir::func::ReturnOp::create(b, defLoc);
  verifyTracedModule(*module, name);
  return module;
}

std::string KernelBase::trace(const Specialization &spec) const {
  std::lock_guard<std::recursive_mutex> lock(compilerMutex()); // outlives `module`
  auto module = impl_->traceModule(spec);
  // TILE_TRACE_DEBUGINFO=1 keeps the user's file:line:col locations in the printed IR.
  const char *env = tile::rt::readEnv("TILE_TRACE_DEBUGINFO");
  return printModule(*module, env && *env && std::string(env) != "0");
}

} // namespace tile
