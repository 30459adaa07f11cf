//===- Reduce.cpp - reductions within threads, warps and the block --------===//
// Order (documented in the op): a thread combines its own elements in increasing index,
// then lanes combine in a butterfly (xor 1, 2, 4, ...), then warps combine their
// partial results in increasing warp index through shared memory. Replicated copies
// of an element contribute the identity, so nothing is counted twice.
#include "TileToLLVM.h"
#include "tile/Transforms/ReduceCombine.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include <limits>

using namespace mlir;
using namespace mlir::tile;

namespace {

bool isArgKind(ReduceKind k) { return k == ReduceKind::ArgMax || k == ReduceKind::ArgMin; }

using Partial = ReducePartial;

struct Combiner {
  OpBuilder &b;
  Location loc;
  ReduceKind kind;
  Type elem;

  bool isFloat() const { return isa<FloatType>(elem); }

  Value identity() const {
    if (kind == ReduceKind::Sum) return arith::ConstantOp::create(b, loc, b.getZeroAttr(elem));
    bool wantsLow = kind == ReduceKind::Max || kind == ReduceKind::ArgMax; // identity is the lowest value
    if (auto ft = dyn_cast<FloatType>(elem)) {
      auto inf = APFloat::getInf(ft.getFloatSemantics(), /*Negative=*/wantsLow);
      return arith::ConstantOp::create(b, loc, b.getFloatAttr(elem, inf));
    }
    unsigned w = elem.getIntOrFloatBitWidth();
    APInt v = wantsLow ? APInt::getSignedMinValue(w) : APInt::getSignedMaxValue(w);
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(elem, v));
  }

  Partial combine(Partial x, Partial y) const { return combineReduce(b, loc, kind, x, y); }
};

/// shfl.sync.bfly of any scalar: 32-bit values directly, narrower ones widened,
/// 64-bit ones as two halves.
Value shuffleXor(OpBuilder &b, Location loc, Value v, unsigned offset) {
  Type t = v.getType();
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  IntBuilder ib{b, loc};
  auto shfl = [&](Value x) -> Value {
    return NVVM::ShflOp::create(b, loc, x.getType(), ib.c(-1), x, ib.c(offset), ib.c(0x1f),
                                NVVM::ShflKind::bfly, UnitAttr());
  };
  if (t == i32 || t == f32) return shfl(v);
  unsigned width = t.getIntOrFloatBitWidth();
  if (isa<FloatType>(t) && width < 32)
    return arith::TruncFOp::create(b, loc, t, shfl(arith::ExtFOp::create(b, loc, f32, v)));
  if (width < 32) return arith::TruncIOp::create(b, loc, t, shfl(arith::ExtSIOp::create(b, loc, i32, v)));
  Type i64 = b.getI64Type();
  Value bits = isa<FloatType>(t) ? Value(arith::BitcastOp::create(b, loc, i64, v)) : v;
  Value lo = shfl(arith::TruncIOp::create(b, loc, i32, bits));
  Value hi = shfl(arith::TruncIOp::create(b, loc, i32, arith::ShRUIOp::create(b, loc, bits, arith::ConstantIntOp::create(b, loc, 32, 64))));
  Value joined = arith::OrIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, lo),
                                      arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, hi),
                                                            arith::ConstantIntOp::create(b, loc, 32, 64)));
  return isa<FloatType>(t) ? Value(arith::BitcastOp::create(b, loc, t, joined)) : joined;
}

/// The cross-warp scratch of a reduction: one slot per (result element, warp along the
/// axis) for the values, then, for argmax/argmin, the i32 indices, 4-byte aligned (values
/// may be 1 or 2 bytes). Empty when one warp holds each result's whole axis.
struct ReduceScratch {
  unsigned indexOffset = 0, bytes = 0;
};
ReduceScratch reduceScratch(ReduceOp op) {
  auto srcType = cast<RankedTensorType>(op.getSrc().getType());
  if (!srcType.getEncoding()) return {};
  ThreadLayout src = ThreadLayout::get(srcType);
  if (src.sliceDim >= 0) return {};
  unsigned warps = src.wpc[op.getAxis()];
  if (warps <= 1) return {};
  auto resType = dyn_cast<RankedTensorType>(op.getType());
  unsigned slots = (resType ? resType.getNumElements() : 1) * warps;
  unsigned values = slots * sharedBytesOf(srcType.getElementType());
  if (!isArgKind(op.getKind())) return {values, values};
  unsigned indexOffset = (values + 3) / 4 * 4;
  return {indexOffset, indexOffset + slots * 4};
}

struct ReduceLowering : OpConversionPattern<ReduceOp> {
  ReduceLowering(TypeConverter &tc, MLIRContext *ctx, SharedMemory &smem)
      : OpConversionPattern(tc, ctx), smem(smem) {}
  SharedMemory &smem;

  LogicalResult matchAndRewrite(ReduceOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    ThreadLayout src = ThreadLayout::get(srcType);
    if (src.sliceDim >= 0) return rewriter.notifyMatchFailure(op, "reducing a sliced tensor");
    unsigned axis = op.getAxis();
    Type elem = getTypeConverter()->convertType(srcType.getElementType());
    Combiner comb{rewriter, loc, op.getKind(), elem};
    bool withIndex = isArgKind(op.getKind());
    IntBuilder ib{rewriter, loc};
    ThreadPosition pos = emitThreadPosition(rewriter, loc, src);

    // Result registers: for a tensor result its slice layout's; for a scalar, one.
    auto resType = dyn_cast<RankedTensorType>(op.getType());
    std::optional<ThreadLayout> res;
    if (resType) res = ThreadLayout::get(resType);
    unsigned numResults = res ? res->numRegs() : 1;

    // 1. Within the thread, in increasing register (= index) order.
    SmallVector<std::optional<Partial>> acc(numResults);
    SmallVector<unsigned> representative(numResults, 0); // a source register of each result
    for (unsigned r = 0; r < src.numRegs(); ++r) {
      unsigned key = res ? res->regNumber(src.regIndex(r)) : 0;
      Partial p{adaptor.getSrc()[r], {}};
      if (withIndex) p.index = emitCoord(rewriter, loc, src, pos, r, axis);
      if (src.replicates(axis)) {
        // Copies beyond the tensor's extent along the axis must not count.
        Value owner = ib.ult(emitUnwrappedCoord(rewriter, loc, src, pos, r, axis), src.shape[axis]);
        p.value = arith::SelectOp::create(rewriter, loc, owner, p.value, comb.identity());
      }
      if (!acc[key]) {
        acc[key] = p;
        representative[key] = r;
      } else {
        acc[key] = comb.combine(*acc[key], p);
      }
    }

    // 2. Across the lanes that share the axis: butterfly.
    int64_t laneStride = 1;
    for (unsigned d : src.order) {
      if (d == axis) break;
      laneStride *= src.tpw[d];
    }
    for (unsigned k = 1; k < src.tpw[axis]; k *= 2)
      for (auto &a : acc) {
        Partial other{shuffleXor(rewriter, loc, a->value, k * laneStride), {}};
        if (withIndex) other.index = shuffleXor(rewriter, loc, a->index, k * laneStride);
        a = comb.combine(*a, other);
      }

    // 3. Across warps: each warp's partial goes to shared memory at
    //    [result element][warp along the axis]; every thread then combines them in order.
    if (unsigned warps = src.wpc[axis]; warps > 1) {
      ReduceScratch scratch = reduceScratch(op);
      Value base = smem.scratch(rewriter, loc, op, scratch.bytes);
      Value indexBase = withIndex ? Value(LLVM::GEPOp::create(rewriter, loc, base.getType(), rewriter.getI8Type(), base,
                                                              ValueRange{ib.c(scratch.indexOffset)}))
                                  : Value();
      // The slot of a result element is its row-major index over every result dimension
      // (a rank-3 source has two), times the warps along the axis.
      SmallVector<Value> slot(numResults);
      for (unsigned key = 0; key < numResults; ++key) {
        Value elemIndex = ib.c(0);
        if (res) {
          SmallVector<unsigned> dims = res->tensorDims();
          for (unsigned i = 0; i < dims.size(); ++i)
            elemIndex = ib.add(ib.mul(elemIndex, ib.c(resType.getDimSize(i))),
                               emitCoord(rewriter, loc, src, pos, representative[key], dims[i]));
        }
        slot[key] = ib.mul(elemIndex, ib.c(warps));
      }
      // (The barrier before these writes, where earlier reads need one, is tile-insert-barriers'.)
      for (unsigned key = 0; key < numResults; ++key) {
        Value at = ib.add(slot[key], pos.warpCoord[axis]);
        LLVM::StoreOp::create(rewriter, loc, toShared(rewriter, loc, acc[key]->value), sharedElementPtr(rewriter, loc, base, elem, at));
        if (withIndex)
          LLVM::StoreOp::create(rewriter, loc, acc[key]->index, sharedElementPtr(rewriter, loc, indexBase, rewriter.getI32Type(), at));
      }
      NVVM::Barrier0Op::create(rewriter, loc);
      for (unsigned key = 0; key < numResults; ++key) {
        std::optional<Partial> total;
        for (unsigned w = 0; w < warps; ++w) {
          Value at = ib.add(slot[key], ib.c(w));
          Partial p{fromShared(rewriter, loc,
                               LLVM::LoadOp::create(rewriter, loc, sharedStorageType(elem), sharedElementPtr(rewriter, loc, base, elem, at)),
                               elem),
                    {}};
          if (withIndex)
            p.index = LLVM::LoadOp::create(rewriter, loc, rewriter.getI32Type(),
                                           sharedElementPtr(rewriter, loc, indexBase, rewriter.getI32Type(), at));
          total = total ? comb.combine(*total, p) : p;
        }
        acc[key] = total;
      }
    }

    SmallVector<Value> results;
    for (auto &a : acc) results.push_back(withIndex ? a->index : a->value);
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

} // namespace


unsigned mlir::tile::reduceScratchBytes(ReduceOp op) { return reduceScratch(op).bytes; }

void mlir::tile::populateReducePatterns(TileTypeConverter &converter, RewritePatternSet &patterns,
                                        SharedMemory &smem) {
  patterns.add<ReduceLowering>(converter, patterns.getContext(), smem);
}
