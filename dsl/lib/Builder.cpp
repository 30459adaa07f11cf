//===- Builder.cpp - per-thread trace state, handles and element types ----===//
#include "State.h"

#include <atomic>

namespace tile {

using namespace detail;

//===----------------------------------------------------------------------===//
// DType helpers (public)
//===----------------------------------------------------------------------===//
const char *dtypeName(DType t) {
  switch (t) {
  case DType::i1: return "i1";
  case DType::i8: return "i8";
  case DType::i16: return "i16";
  case DType::i32: return "i32";
  case DType::i64: return "i64";
  case DType::f16: return "f16";
  case DType::bf16: return "bf16";
  case DType::f32: return "f32";
  case DType::f64: return "f64";
  }
  return "?";
}

bool isFloat(DType t) { return t == DType::f16 || t == DType::bf16 || t == DType::f32 || t == DType::f64; }

unsigned dtypeBytes(DType t) {
  switch (t) {
  case DType::i1:
  case DType::i8: return 1;
  case DType::i16:
  case DType::f16:
  case DType::bf16: return 2;
  case DType::i32:
  case DType::f32: return 4;
  case DType::i64:
  case DType::f64: return 8;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Value queries (public). They read the MLIR type, so they need the trace that created the
// value to be running (on this thread); a Value kept past it is a ProgramError here.
//===----------------------------------------------------------------------===//
/// The mlir::Value of `v` if its trace is running, else a ProgramError at the caller's line.
static mlir::Value queried(const Value &v, const SrcLoc &loc, const char *query) {
  if (!liveTrace(v.traceId()))
    fail(loc) << "tile::Value::" << query << ": the Value is one whose kernel trace has ended (kept in a static, "
              << "or made by another kernel); a Value is usable only while the kernel that made it is traced";
  return unwrap(v);
}

bool Value::isTensor(SrcLoc loc) const { return valid() && isTensorType(queried(*this, loc, "isTensor()").getType()); }
bool Value::isPointer(SrcLoc loc) const { return valid() && isPtrElem(queried(*this, loc, "isPointer()").getType()); }

DType Value::dtype(SrcLoc loc) const {
  if (!valid()) throw ArgumentError("tile::Value::dtype() on an empty (default-constructed) Value");
  mlir::Type e = mlir::getElementTypeOrSelf(queried(*this, loc, "dtype()").getType());
  if (auto p = mlir::dyn_cast<mlir::tile::PtrType>(e)) e = p.getPointeeType();
  if (auto d = fromMlir(e)) return *d;
  bug() << "value of unsupported element type";
}

std::vector<int64_t> Value::shape(SrcLoc loc) const {
  if (!valid()) return {};
  auto s = shapeOf(queried(*this, loc, "shape()").getType());
  return {s.begin(), s.end()};
}

namespace detail {

//===----------------------------------------------------------------------===//
// Current trace
//===----------------------------------------------------------------------===//
// thread_local: kernels may be traced concurrently on different threads (each with its
// own module; the MLIRContext itself is thread-safe).
static thread_local TraceState *gCurrent = nullptr;

/// Ids of traces, process-wide: a Value from another thread's trace is never taken for one
/// of this thread's.
static std::atomic<uint64_t> gLastTraceId{0};

TraceState::TraceState(mlir::ModuleOp m, std::string kernelName)
    : ctx(m.getContext()), builder(m.getContext()), module(m), kernelName(std::move(kernelName)), id(++gLastTraceId) {}

TraceScope::TraceScope(TraceState &s) : prev_(gCurrent) {
  s.outer = gCurrent;
  gCurrent = &s;
}
TraceScope::~TraceScope() { gCurrent = prev_; }

TraceState &requireTrace(const SrcLoc &loc, const char *op) {
  if (!gCurrent) fail(loc) << "tile::" << op << " called outside a kernel";
  return *gCurrent;
}

uint64_t currentTraceId() { return gCurrent ? gCurrent->id : 0; }

TraceState *liveTrace(uint64_t id) {
  for (TraceState *t = gCurrent; t; t = t->outer)
    if (t->id == id) return t;
  return nullptr;
}

mlir::Location toLoc(mlir::MLIRContext *ctx, const SrcLoc &loc) {
  return mlir::FileLineColLoc::get(ctx, loc.file_name(), loc.line(), loc.column());
}

mlir::Value use(TraceState &s, const Value &v, const SrcLoc &loc, const char *what) {
  if (!v.valid()) fail(loc) << what << ": operand is an empty tile::Value (never assigned)";
  // Checked before the handle is read: a Value of an ended trace points into freed IR.
  if (v.traceId() != s.id) {
    if (TraceState *owner = liveTrace(v.traceId()))
      fail(loc) << what << ": operand belongs to another kernel's trace ('" << owner->kernelName << "', still being "
                << "traced around this one); pass it to this kernel as an argument";
    fail(loc) << what << ": operand is a tile::Value whose kernel trace has ended (kept in a static, or made by "
              << "another kernel); a Value is usable only while the kernel that made it is traced";
  }
  mlir::Value m = unwrap(v);
  // The defining block must enclose the insertion point; otherwise the value was created
  // in a loop or branch body that has already been closed (or in another kernel).
  mlir::Block *def = m.getParentBlock();
  for (mlir::Block *b = s.builder.getInsertionBlock(); b; b = b->getParentOp() ? b->getParentOp()->getBlock() : nullptr)
    if (b == def) return m;
  fail(loc) << what << ": operand was computed inside a loop or branch body that has ended; "
            << "return it from the body to use it here";
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//
mlir::Type toMlir(mlir::MLIRContext *ctx, DType t) {
  switch (t) {
  case DType::i1: return mlir::IntegerType::get(ctx, 1);
  case DType::i8: return mlir::IntegerType::get(ctx, 8);
  case DType::i16: return mlir::IntegerType::get(ctx, 16);
  case DType::i32: return mlir::IntegerType::get(ctx, 32);
  case DType::i64: return mlir::IntegerType::get(ctx, 64);
  case DType::f16: return mlir::Float16Type::get(ctx);
  case DType::bf16: return mlir::BFloat16Type::get(ctx);
  case DType::f32: return mlir::Float32Type::get(ctx);
  case DType::f64: return mlir::Float64Type::get(ctx);
  }
  return {};
}

std::optional<DType> fromMlir(mlir::Type e) {
  if (e.isInteger(1)) return DType::i1;
  if (e.isInteger(8)) return DType::i8;
  if (e.isInteger(16)) return DType::i16;
  if (e.isInteger(32)) return DType::i32;
  if (e.isInteger(64)) return DType::i64;
  if (e.isF16()) return DType::f16;
  if (e.isBF16()) return DType::bf16;
  if (e.isF32()) return DType::f32;
  if (e.isF64()) return DType::f64;
  return std::nullopt;
}

llvm::ArrayRef<int64_t> shapeOf(mlir::Type t) {
  if (auto rt = mlir::dyn_cast<mlir::RankedTensorType>(t)) return rt.getShape();
  return {};
}

bool isTensorType(mlir::Type t) { return mlir::isa<mlir::RankedTensorType>(t); }

mlir::Type withElem(mlir::Type like, mlir::Type elem) {
  if (auto rt = mlir::dyn_cast<mlir::RankedTensorType>(like)) return mlir::RankedTensorType::get(rt.getShape(), elem);
  return elem;
}

mlir::Type shaped(llvm::ArrayRef<int64_t> shape, mlir::Type elem) {
  if (shape.empty()) return elem;
  return mlir::RankedTensorType::get(shape, elem);
}

} // namespace detail
} // namespace tile
