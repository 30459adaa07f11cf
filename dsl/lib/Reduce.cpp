//===- Reduce.cpp - sum, max, min, argmax, argmin --------------------------===//
#include "State.h"

namespace tile {

using namespace detail;
using mlir::tile::ReduceKind;

static const char *kindName(ReduceKind k) {
  switch (k) {
  case ReduceKind::Sum: return "sum";
  case ReduceKind::Max: return "max";
  case ReduceKind::Min: return "min";
  case ReduceKind::ArgMax: return "argmax";
  case ReduceKind::ArgMin: return "argmin";
  }
  return "?";
}

static Value reduce(ReduceKind k, const Value &x, int axis, const SrcLoc &loc) {
  const char *name = kindName(k);
  TraceState &s = requireTrace(loc, name);
  mlir::Location l = toLoc(s.ctx, loc);
  mlir::Value v = use(s, x, loc, name);
  if (!isTensorType(v.getType()))
    fail(loc) << "tile::" << name << " reduces a tensor, got the scalar " << typeStr(v.getType());
  if (isPtrElem(v.getType()))
    fail(loc) << "tile::" << name << ": cannot reduce pointers (" << typeStr(v.getType()) << ")";
  auto shape = shapeOf(v.getType());
  int rank = static_cast<int>(shape.size());
  int a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    fail(loc) << "tile::" << name << ": axis " << axis << " out of range for a tensor of rank " << rank << " "
              << shapeStr(shape);

  // Accumulate in a type that neither overflows trivially nor loses precision, as Triton
  // does: bools and small ints sum in i32, f16/bf16 in f32. Max/min of bools use i32 too
  // (the combiners are defined on integers and floats).
  mlir::Type e = mlir::getElementTypeOrSelf(v.getType());
  if (e.isInteger(1) || (k == ReduceKind::Sum && mlir::isa<mlir::IntegerType>(e) && e.getIntOrFloatBitWidth() < 32))
    v = convertElem(s, l, v, s.builder.getI32Type());
  else if (k == ReduceKind::Sum && mlir::isa<mlir::FloatType>(e) && e.getIntOrFloatBitWidth() < 32)
    v = convertElem(s, l, v, s.builder.getF32Type());

  bool isArg = k == ReduceKind::ArgMax || k == ReduceKind::ArgMin;
  mlir::Type re = isArg ? s.builder.getI32Type() : mlir::getElementTypeOrSelf(v.getType());
  llvm::SmallVector<int64_t> out(shape);
  out.erase(out.begin() + a);
  return wrap(mlir::tile::ReduceOp::create(s.builder, l, shaped(out, re), k, v, static_cast<uint32_t>(a)));
}

Value sum(Value x, int axis, SrcLoc loc) { return reduce(ReduceKind::Sum, x, axis, loc); }
Value max(Value x, int axis, SrcLoc loc) { return reduce(ReduceKind::Max, x, axis, loc); }
Value min(Value x, int axis, SrcLoc loc) { return reduce(ReduceKind::Min, x, axis, loc); }
Value argmax(Value x, int axis, SrcLoc loc) { return reduce(ReduceKind::ArgMax, x, axis, loc); }
Value argmin(Value x, int axis, SrcLoc loc) { return reduce(ReduceKind::ArgMin, x, axis, loc); }

} // namespace tile
