//===- Reduce.cpp - tile.reduce for the CPU executor ----------------------===//
// Order (floating-point sums depend on it; the GPU's is in TileOps.td):
//  - along the last dimension of n elements, with w = the largest power of two <= the
//    chunk size dividing n: element j goes to lane j mod w; each lane combines its
//    elements in increasing index; then the lanes combine as a halving tree (lane i with
//    lane i + w/2, then i + w/4, ..., 1);
//  - along any other dimension: sequentially in increasing index, one vector of w
//    independent results at a time.
// max/min propagate NaN (arith.maximumf/minimumf, as on the GPU); argmax/argmin return
// the smallest index among equal values, and a NaN never wins (as the GPU's combine).
#include "Reduce.h"

#include "tile/Transforms/ReduceCombine.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::cpu;

namespace {
/// A partial result: values and, for argmax/argmin, their indices (vectors or scalars),
/// combined exactly as the GPU lowering does.
using Partial = ReducePartial;
Partial combine(OpBuilder &b, Location loc, ReduceKind kind, Partial x, Partial y) {
  return combineReduce(b, loc, kind, x, y);
}

/// Lanes [from, from + n) of `v`.
Value lanes(OpBuilder &b, Location loc, Value v, int64_t from, int64_t n) {
  SmallVector<int64_t> mask;
  for (int64_t i = 0; i < n; ++i) mask.push_back(from + i);
  return vector::ShuffleOp::create(b, loc, v, v, mask);
}
} // namespace

void mlir::tile::cpu::lowerReduce(KernelLowering &lowering, ReduceOp op) {
  OpBuilder &b = lowering.builder();
  Location loc = lowering.loc();
  RankedTensorType srcType = lowering.tensorType(op.getSrc());
  ArrayRef<int64_t> shape = srcType.getShape();
  unsigned axisDim = op.getAxis(), rank = shape.size();
  ReduceKind kind = op.getKind();
  bool withIndex = kind == ReduceKind::ArgMax || kind == ReduceKind::ArgMin;
  Type i32 = b.getI32Type();
  auto indexVector = [&](Value first, int64_t w) -> Value { // first, first+1, ..., first+w-1 (i32)
    auto vt = VectorType::get({w}, i32);
    SmallVector<int32_t> iota(w);
    for (int64_t i = 0; i < w; ++i) iota[i] = static_cast<int32_t>(i);
    Value base = vector::BroadcastOp::create(b, loc, vt, arith::IndexCastOp::create(b, loc, i32, first));
    return arith::AddIOp::create(
        b, loc, base, arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, ArrayRef<int32_t>(iota))));
  };
  // Runs `step(k, partial) -> partial` for k in [from, to) with the partial loop-carried.
  auto loop = [&](int64_t from, int64_t to, int64_t stride, Partial init,
                  function_ref<Partial(Value, Partial)> step) -> Partial {
    if (from >= to) return init;
    SmallVector<Value> inits{init.value};
    if (withIndex) inits.push_back(init.index);
    auto forOp = scf::ForOp::create(b, loc, lowering.cIndex(from), lowering.cIndex(to), lowering.cIndex(stride), inits);
    OpBuilder::InsertionGuard guard(b);
    Block *body = forOp.getBody();
    if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>()) body->back().erase();
    b.setInsertionPointToEnd(body);
    Partial cur{forOp.getRegionIterArgs()[0], withIndex ? forOp.getRegionIterArgs()[1] : Value()};
    Partial next = step(forOp.getInductionVar(), cur);
    SmallVector<Value> yields{next.value};
    if (withIndex) yields.push_back(next.index);
    scf::YieldOp::create(b, loc, yields);
    return {forOp.getResult(0), withIndex ? forOp.getResult(1) : Value()};
  };

  Value result = op.getResult();
  RankedTensorType resultType = lowering.tensorType(result);
  Type resultElem = getElementTypeOrSelf(result.getType());

  if (axisDim + 1 == rank) {
    int64_t n = shape.back(), w = lowering.pow2WidthFor(n);
    auto reduceRow = [&](ArrayRef<Value> lead) -> Value {
      SmallVector<Value> idx(lead);
      idx.push_back(lowering.cIndex(0));
      Partial acc{lowering.chunk(op.getSrc(), idx, w), withIndex ? indexVector(lowering.cIndex(0), w) : Value()};
      acc = loop(w, n, w, acc, [&](Value k, Partial cur) {
        idx.back() = k;
        return combine(b, loc, kind, cur,
                       {lowering.chunk(op.getSrc(), idx, w), withIndex ? indexVector(k, w) : Value()});
      });
      for (int64_t h = w / 2; h >= 1; h /= 2) {
        Partial lo{lanes(b, loc, acc.value, 0, h), withIndex ? lanes(b, loc, acc.index, 0, h) : Value()};
        Partial hi{lanes(b, loc, acc.value, h, h), withIndex ? lanes(b, loc, acc.index, h, h) : Value()};
        acc = combine(b, loc, kind, lo, hi);
      }
      return vector::ExtractOp::create(b, loc, withIndex ? acc.index : acc.value, ArrayRef<int64_t>{0});
    };
    if (!resultType) {
      lowering.mapScalar(result, reduceRow({}));
      return;
    }
    Value buf = lowering.allocBuffer(resultType);
    lowering.forEachChunk(resultType.getShape(), 1, [&](ArrayRef<Value> idx) {
      Value v = reduceRow(idx);
      lowering.storeChunk(buf, resultElem, vector::BroadcastOp::create(b, loc, VectorType::get({1}, v.getType()), v),
                          idx);
    });
    lowering.setBuffer(result, buf);
    return;
  }

  // Along an outer dimension: w independent results per chunk, combined in index order.
  Value buf = lowering.allocBuffer(resultType);
  int64_t w = lowering.widthFor(shape.back());
  lowering.forEachChunk(resultType.getShape(), w, [&](ArrayRef<Value> idx) {
    SmallVector<Value> srcIdx(idx);
    srcIdx.insert(srcIdx.begin() + axisDim, lowering.cIndex(0));
    auto splatIndex = [&](Value k) -> Value {
      return vector::BroadcastOp::create(b, loc, VectorType::get({w}, i32), arith::IndexCastOp::create(b, loc, i32, k));
    };
    Partial acc{lowering.chunk(op.getSrc(), srcIdx, w), withIndex ? splatIndex(lowering.cIndex(0)) : Value()};
    acc = loop(1, shape[axisDim], 1, acc, [&](Value k, Partial cur) {
      srcIdx[axisDim] = k;
      return combine(b, loc, kind, cur, {lowering.chunk(op.getSrc(), srcIdx, w), withIndex ? splatIndex(k) : Value()});
    });
    lowering.storeChunk(buf, resultElem, withIndex ? acc.index : acc.value, idx);
  });
  lowering.setBuffer(result, buf);
}
