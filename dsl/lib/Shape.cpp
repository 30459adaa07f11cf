//===- Shape.cpp - program ids, ranges, constants, expand_dims, broadcast -===//
#include "State.h"

namespace tile {

using namespace detail;

static bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// Tensor dimensions are compile-time powers of two (the layouts tile threads over them).
static void checkShape(const SrcLoc &loc, const char *op, const std::vector<int64_t> &shape) {
  for (int64_t d : shape)
    if (!isPow2(d))
      fail(loc) << "tile::" << op << ": every dimension must be a positive power of two, got shape " << shapeStr(shape);
}

static Value gridQuery(bool isId, int axis, const SrcLoc &loc) {
  const char *op = isId ? "program_id" : "num_programs";
  TraceState &s = requireTrace(loc, op);
  if (axis < 0 || axis > 2) fail(loc) << "tile::" << op << ": axis must be the constant 0, 1 or 2, got " << axis;
  mlir::Location l = toLoc(s.ctx, loc);
  auto i32 = s.builder.getI32Type();
  auto attr = s.builder.getI32IntegerAttr(axis);
  if (isId) return wrap(mlir::tile::ProgramIdOp::create(s.builder, l, i32, attr));
  return wrap(mlir::tile::NumProgramsOp::create(s.builder, l, i32, attr));
}

Value program_id(int axis, SrcLoc loc) { return gridQuery(true, axis, loc); }
Value num_programs(int axis, SrcLoc loc) { return gridQuery(false, axis, loc); }

Value arange(int64_t start, int64_t end, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "arange");
  if (end <= start) fail(loc) << "tile::arange: end (" << end << ") must be greater than start (" << start << ")";
  if (!isPow2(end - start))
    fail(loc) << "tile::arange: the size end - start = " << (end - start)
              << " must be a power of two (round up with tile::next_power_of_2 and mask)";
  if (start < INT32_MIN || end > INT32_MAX) fail(loc) << "tile::arange: bounds must fit in i32";
  mlir::Location l = toLoc(s.ctx, loc);
  auto type = mlir::RankedTensorType::get({end - start}, s.builder.getI32Type());
  return wrap(mlir::tile::MakeRangeOp::create(s.builder, l, type,
                                              s.builder.getI32IntegerAttr(static_cast<int32_t>(start)),
                                              s.builder.getI32IntegerAttr(static_cast<int32_t>(end))));
}

Value full(const std::vector<int64_t> &shape, Operand value, DType dtype, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "full");
  checkShape(loc, "full", shape);
  mlir::Location l = toLoc(s.ctx, loc);
  mlir::Type elem = toMlir(s.ctx, dtype);
  if (value.kind == Operand::Kind::V) {
    // A runtime scalar is fine (splat); a tensor is not a fill value.
    mlir::Value v = use(s, value.value, value.loc, "full");
    if (isTensorType(v.getType()))
      fail(loc) << "tile::full: the fill value must be a scalar (a number or a scalar value), got the tensor "
                << typeStr(v.getType());
    if (isPtrElem(v.getType())) fail(loc) << "tile::full: cannot fill with a pointer (" << typeStr(v.getType()) << ")";
  }
  return wrap(materialize(s, l, value, elem, shape, "tile::full"));
}

Value zeros(const std::vector<int64_t> &shape, DType dtype, SrcLoc loc) {
  return full(shape, Operand(0, loc), dtype, loc);
}

Value constant(double value, DType dtype, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "constant");
  return wrap(makeConstant(s, toLoc(s.ctx, loc), loc, toMlir(s.ctx, dtype), true, 0, value));
}

Value expand_dims(Value x, int axis, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "expand_dims");
  mlir::Location l = toLoc(s.ctx, loc);
  mlir::Value v = use(s, x, loc, "tile::expand_dims");
  auto shape = shapeOf(v.getType());
  int rank = static_cast<int>(shape.size());
  int a = axis < 0 ? axis + rank + 1 : axis; // -1 appends, as in numpy
  if (a < 0 || a > rank)
    fail(loc) << "tile::expand_dims: axis " << axis << " out of range for a value of rank " << rank;
  if (rank == 0) return wrap(broadcastTo(s, l, v, {1})); // a scalar becomes a [1] tensor
  llvm::SmallVector<int64_t> out(shape);
  out.insert(out.begin() + a, 1);
  auto rt = mlir::RankedTensorType::get(out, mlir::getElementTypeOrSelf(v.getType()));
  return wrap(mlir::tile::ExpandDimsOp::create(s.builder, l, rt, v, s.builder.getI32IntegerAttr(a)));
}

Value broadcast_to(Value x, const std::vector<int64_t> &shape, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "broadcast_to");
  checkShape(loc, "broadcast_to", shape);
  mlir::Location l = toLoc(s.ctx, loc);
  mlir::Value v = use(s, x, loc, "tile::broadcast_to");
  auto have = shapeOf(v.getType());
  auto j = broadcastShapes(have, shape);
  if (!j || llvm::ArrayRef<int64_t>(*j) != llvm::ArrayRef<int64_t>(shape))
    fail(loc) << "tile::broadcast_to: shape " << shapeStr(have) << " cannot be broadcast to " << shapeStr(shape);
  return wrap(broadcastTo(s, l, v, shape));
}

} // namespace tile
