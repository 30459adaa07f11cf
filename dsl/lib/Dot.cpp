//===- Dot.cpp - dot (matrix product), trans, reshape ----------------------===//
#include "State.h"

namespace tile {

using namespace detail;

Value dot(Value a, Value b, Value acc, Precision precision, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "dot");
  mlir::Location l = toLoc(s.ctx, loc);
  mlir::Value va = use(s, a, loc, "tile::dot"), vb = use(s, b, loc, "tile::dot");
  auto sa = shapeOf(va.getType()), sb = shapeOf(vb.getType());
  if (sa.size() != 2 || sb.size() != 2)
    fail(loc) << "tile::dot: a and b must be 2-D tensors, got " << typeStr(va.getType()) << " and "
              << typeStr(vb.getType());
  if (sa[1] != sb[0])
    fail(loc) << "tile::dot: the inner dimensions differ: a is " << shapeStr(sa) << ", b is " << shapeStr(sb);
  mlir::Type ea = mlir::getElementTypeOrSelf(va.getType()), eb = mlir::getElementTypeOrSelf(vb.getType());
  if (ea != eb)
    fail(loc) << "tile::dot: a and b must have one element type, got " << typeStr(va.getType()) << " and "
              << typeStr(vb.getType()) << " (cast one)";
  if (!mlir::isa<mlir::Float16Type, mlir::BFloat16Type, mlir::Float32Type>(ea))
    fail(loc) << "tile::dot: inputs must be f16, bf16 or f32, got " << typeStr(va.getType());
  if (precision == Precision::TF32 && !ea.isF32())
    fail(loc) << "tile::dot: Precision::TF32 needs f32 inputs, got " << typeStr(va.getType());
  llvm::SmallVector<int64_t> out = {sa[0], sb[1]};
  mlir::Type f32 = s.builder.getF32Type();
  mlir::Value vacc;
  if (acc.valid()) {
    vacc = use(s, acc, loc, "tile::dot");
    auto sc = shapeOf(vacc.getType());
    if (sc.size() != 2 || sc[0] != out[0] || sc[1] != out[1] || !mlir::getElementTypeOrSelf(vacc.getType()).isF32())
      fail(loc) << "tile::dot: the accumulator must be f32" << shapeStr(out) << ", got " << typeStr(vacc.getType());
  } else {
    vacc = materialize(s, l, Operand(0.0, loc), f32, out, "tile::dot");
  }
  auto p = precision == Precision::TF32 ? mlir::tile::InputPrecision::TF32 : mlir::tile::InputPrecision::IEEE;
  return wrap(mlir::tile::DotOp::create(s.builder, l, vacc.getType(), va, vb, vacc,
                                        mlir::tile::InputPrecisionAttr::get(s.ctx, p)));
}

Value dot(Value a, Value b, Value acc, SrcLoc loc) { return dot(a, b, acc, Precision::IEEE, loc); }
Value dot(Value a, Value b, SrcLoc loc) { return dot(a, b, Value(), Precision::IEEE, loc); }

Value trans(Value x, const std::vector<int> &order, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "trans");
  mlir::Value v = use(s, x, loc, "tile::trans");
  auto shape = shapeOf(v.getType());
  const int rank = static_cast<int>(shape.size());
  if (rank == 0) fail(loc) << "tile::trans: needs a tensor, got the scalar " << typeStr(v.getType());
  std::vector<int> perm = order;
  if (perm.empty())
    for (int d = rank - 1; d >= 0; --d) perm.push_back(d); // reverse, as numpy's x.T
  std::vector<bool> seen(rank, false);
  bool valid = int(perm.size()) == rank;
  for (int d : perm) {
    if (d < 0 || d >= rank || seen[d]) valid = false;
    else seen[d] = true;
  }
  if (!valid)
    fail(loc) << "tile::trans: order " << shapeStr(llvm::SmallVector<int64_t>(perm.begin(), perm.end()))
              << " is not a permutation of the " << rank << " dimensions of " << typeStr(v.getType());
  llvm::SmallVector<int64_t> out;
  llvm::SmallVector<int32_t> attr;
  for (int d : perm) out.push_back(shape[d]), attr.push_back(d);
  auto type = mlir::RankedTensorType::get(out, mlir::getElementTypeOrSelf(v.getType()));
  return wrap(mlir::tile::TransOp::create(s.builder, toLoc(s.ctx, loc), type, v, s.builder.getDenseI32ArrayAttr(attr)));
}

Value trans(Value x, SrcLoc loc) { return trans(x, {}, loc); }

Value reshape(Value x, const std::vector<int64_t> &shape, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "reshape");
  mlir::Value v = use(s, x, loc, "tile::reshape");
  auto have = shapeOf(v.getType());
  if (have.empty()) fail(loc) << "tile::reshape: needs a tensor, got the scalar " << typeStr(v.getType());
  int64_t from = 1, to = 1;
  for (int64_t d : have) from *= d;
  for (int64_t d : shape) {
    if (d <= 0 || (d & (d - 1)))
      fail(loc) << "tile::reshape: every dimension must be a positive power of two, got " << shapeStr(shape);
    to *= d;
  }
  if (shape.empty() || from != to)
    fail(loc) << "tile::reshape: " << typeStr(v.getType()) << " has " << from << " elements, shape " << shapeStr(shape)
              << " has " << to;
  auto type = mlir::RankedTensorType::get(shape, mlir::getElementTypeOrSelf(v.getType()));
  return wrap(mlir::tile::ReshapeOp::create(s.builder, toLoc(s.ctx, loc), type, v));
}

} // namespace tile
