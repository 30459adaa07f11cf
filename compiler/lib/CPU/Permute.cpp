//===- Permute.cpp - tile.trans and tile.reshape for the CPU executor ------===//
// Both move elements without computing on them, between row-major stack buffers:
//  - trans: result element [r0, ..., rn-1] is source element [s] with s[order[i]] = ri.
//    Where the last dimension stays last, a result chunk is a source chunk at permuted
//    indices (the source stays lazy, fused into the result's loop); otherwise the
//    source is materialised and each result chunk gathers its elements at the source
//    dimension's stride.
//  - reshape: the same elements in row-major order, so the result is the materialised
//    source seen through a view with the result's shape (memref.reinterpret_cast).
#include "Permute.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::cpu;

namespace {
/// Row-major strides (in elements) of `shape`.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}
} // namespace

void mlir::tile::cpu::lowerTrans(KernelLowering &lowering, TransOp op) {
  OpBuilder &b = lowering.builder();
  Location loc = lowering.loc();
  RankedTensorType srcType = lowering.tensorType(op.getSrc()), resultType = lowering.tensorType(op.getResult());
  ArrayRef<int32_t> order = op.getOrder();
  const int64_t rank = resultType.getRank();
  Type elem = resultType.getElementType();
  Value result = lowering.allocBuffer(resultType);
  int64_t w = lowering.widthFor(resultType.getShape().back());

  if (order.back() == rank - 1) {
    lowering.forEachChunk(resultType.getShape(), w, [&](ArrayRef<Value> idx) {
      SmallVector<Value> srcIdx(rank);
      for (int64_t i = 0; i < rank; ++i) srcIdx[order[i]] = idx[i];
      lowering.storeChunk(result, elem, lowering.chunk(op.getSrc(), srcIdx, w), idx);
    });
    lowering.setBuffer(op.getResult(), result);
    return;
  }

  Value flat = lowering.viewAs(lowering.bufferOf(op.getSrc()), {srcType.getNumElements()});
  SmallVector<int64_t> srcStrides = stridesOf(srcType.getShape());
  const int64_t laneStride = srcStrides[order.back()];
  Type mem = lowering.memElem(elem);
  auto memVec = VectorType::get({w}, mem);
  SmallVector<int32_t> laneOffsets(w);
  for (int64_t l = 0; l < w; ++l) laneOffsets[l] = static_cast<int32_t>(l * laneStride);
  lowering.forEachChunk(resultType.getShape(), w, [&](ArrayRef<Value> idx) {
    Value first = lowering.cIndex(0);
    for (int64_t i = 0; i < rank; ++i)
      first = arith::AddIOp::create(b, loc, first,
                                    arith::MulIOp::create(b, loc, idx[i], lowering.cIndex(srcStrides[order[i]])));
    Value v;
    if (w == 1) {
      v = lowering.loadChunk(flat, elem, first, 1);
    } else {
      auto offsetsType = VectorType::get({w}, b.getI32Type());
      Value offsets =
          arith::ConstantOp::create(b, loc, DenseElementsAttr::get(offsetsType, ArrayRef<int32_t>(laneOffsets)));
      Value all = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(VectorType::get({w}, b.getI1Type()), true));
      Value zeros = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(memVec, b.getZeroAttr(mem)));
      v = vector::GatherOp::create(b, loc, memVec, flat, ValueRange{first}, offsets, all, zeros);
      if (mem != lowering.valueElem(elem)) // bytes back to i1, as loadChunk does
        v = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zeros);
    }
    lowering.storeChunk(result, elem, v, idx);
  });
  lowering.setBuffer(op.getResult(), result);
}

void mlir::tile::cpu::lowerReshape(KernelLowering &lowering, ReshapeOp op) {
  RankedTensorType resultType = lowering.tensorType(op.getResult());
  Type elem = resultType.getElementType();
  bool fresh = false;
  Value src = lowering.bufferOf(op.getSrc(), &fresh);
  if (fresh) {
    // Nothing else writes a fresh buffer, so the result can be a view of it. (A buffer
    // the source already had may be a loop-carried one, overwritten while the result lives.)
    lowering.setBuffer(op.getResult(), lowering.viewAs(src, resultType.getShape()));
    return;
  }
  // Otherwise a copy, read through a view of the source with the result's shape.
  Value view = lowering.viewAs(src, resultType.getShape());
  Value result = lowering.allocBuffer(resultType);
  int64_t w = lowering.widthFor(resultType.getShape().back());
  lowering.forEachChunk(resultType.getShape(), w, [&](ArrayRef<Value> idx) {
    lowering.storeChunk(result, elem, lowering.loadChunk(view, elem, idx, w), idx);
  });
  lowering.setBuffer(op.getResult(), result);
}
