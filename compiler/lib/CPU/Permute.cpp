//===- Permute.cpp - tile.trans and tile.reshape for the CPU executor ------===//
// Both move elements without computing on them, between row-major stack buffers:
//  - trans: result element [r0, ..., rn-1] is source element [s] with s[order[i]] = ri.
//    Where the last dimension stays last, a result chunk is a source chunk at permuted
//    indices (the source stays lazy, fused into the result's loop); otherwise the
//    source is materialised and each result chunk gathers its elements at the source
//    dimension's stride.
//  - reshape: the same elements in row-major order, so the result is the materialised
//    source seen through a view with the result's shape (memref.reinterpret_cast).
#include "Lowering.h"

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

void KernelLowering::emitTrans(TransOp op) {
  RankedTensorType srcType = tensorType(op.getSrc()), resultType = tensorType(op.getResult());
  ArrayRef<int32_t> order = op.getOrder();
  const int64_t rank = resultType.getRank();
  Type elem = resultType.getElementType();
  Value result = allocBuffer(resultType);
  int64_t w = widthFor(resultType.getShape().back());

  if (order.back() == rank - 1) {
    forEachChunk(resultType.getShape(), w, [&](ArrayRef<Value> idx) {
      SmallVector<Value> srcIdx(rank);
      for (int64_t i = 0; i < rank; ++i) srcIdx[order[i]] = idx[i];
      storeChunk(result, elem, chunk(op.getSrc(), srcIdx, w), idx);
    });
    buffers[op.getResult()] = result;
    return;
  }

  Value flat = viewAs(bufferOf(op.getSrc()), {srcType.getNumElements()});
  SmallVector<int64_t> srcStrides = stridesOf(srcType.getShape());
  const int64_t laneStride = srcStrides[order.back()];
  Type mem = memElem(elem);
  auto memVec = VectorType::get({w}, mem);
  SmallVector<int32_t> laneOffsets(w);
  for (int64_t l = 0; l < w; ++l) laneOffsets[l] = static_cast<int32_t>(l * laneStride);
  forEachChunk(resultType.getShape(), w, [&](ArrayRef<Value> idx) {
    Value first = cIndex(0);
    for (int64_t i = 0; i < rank; ++i)
      first = arith::AddIOp::create(b, loc, first, arith::MulIOp::create(b, loc, idx[i], cIndex(srcStrides[order[i]])));
    Value v;
    if (w == 1) {
      v = loadChunk(flat, elem, first, 1);
    } else {
      auto offsetsType = VectorType::get({w}, b.getI32Type());
      Value offsets =
          arith::ConstantOp::create(b, loc, DenseElementsAttr::get(offsetsType, ArrayRef<int32_t>(laneOffsets)));
      Value all = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(VectorType::get({w}, b.getI1Type()), true));
      Value zeros = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(memVec, b.getZeroAttr(mem)));
      v = vector::GatherOp::create(b, loc, memVec, flat, ValueRange{first}, offsets, all, zeros);
      if (mem != valueElem(elem)) // bytes back to i1, as loadChunk does
        v = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zeros);
    }
    storeChunk(result, elem, v, idx);
  });
  buffers[op.getResult()] = result;
}

void KernelLowering::emitReshape(ReshapeOp op) {
  RankedTensorType resultType = tensorType(op.getResult());
  Type elem = resultType.getElementType();
  bool fresh = false;
  Value src = bufferOf(op.getSrc(), &fresh);
  if (fresh) {
    // Nothing else writes a fresh buffer, so the result can be a view of it. (A buffer
    // the source already had may be a loop-carried one, overwritten while the result lives.)
    buffers[op.getResult()] = viewAs(src, resultType.getShape());
    return;
  }
  // Otherwise a copy, read through a view of the source with the result's shape.
  Value view = viewAs(src, resultType.getShape());
  Value result = allocBuffer(resultType);
  int64_t w = widthFor(resultType.getShape().back());
  forEachChunk(resultType.getShape(), w, [&](ArrayRef<Value> idx) {
    storeChunk(result, elem, loadChunk(view, elem, idx, w), idx);
  });
  buffers[op.getResult()] = result;
}
