//===- Reduce.cpp - reductions within threads, warps and the block --------===//
// Order (documented in the op): a thread combines its own elements in increasing index
// (max, min and integer sums, which no order changes, pairwise), then lanes combine in a
// butterfly (xor 1, 2, 4, ...), then warps combine their partial results in increasing warp
// index through shared memory. Which registers, lanes and warps run along the axis comes
// from the source's linear layout (any distributed layout of the form planReduce,
// tile/Analysis/SharedMemory.h, describes); copies of an element (the layout's free
// variables) are skipped, so nothing is counted twice.
#include "TileToLLVM.h"
#include "tile/Analysis/SharedMemory.h"
#include "tile/Transforms/ReduceCombine.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/Debug.h"

#include <limits>
#include <map>

// The patterns of convert-tile-to-llvm: `tile-opt -debug-only=convert-tile-to-llvm`.
#define DEBUG_TYPE "convert-tile-to-llvm"

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

  Partial combine(Partial x, Partial y) const { return combineReduce(b, loc, kind, x, y); }
};

/// shfl.sync.bfly of any scalar: 32-bit values directly, narrower ones widened,
/// 64-bit ones as two halves.
Value shuffleXor(OpBuilder &b, Location loc, Value v, unsigned offset) {
  Type t = v.getType();
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  IntBuilder ib{b, loc};
  auto shfl = [&](Value x) -> Value {
    return NVVM::ShflOp::create(b, loc, x.getType(), ib.c(-1), x, ib.c(offset), ib.c(0x1f), NVVM::ShflKind::bfly,
                                UnitAttr());
  };
  if (t == i32 || t == f32) return shfl(v);
  unsigned width = t.getIntOrFloatBitWidth();
  if (isa<FloatType>(t) && width < 32)
    return arith::TruncFOp::create(b, loc, t, shfl(arith::ExtFOp::create(b, loc, f32, v)));
  if (width < 32) return arith::TruncIOp::create(b, loc, t, shfl(arith::ExtSIOp::create(b, loc, i32, v)));
  Type i64 = b.getI64Type();
  Value bits = isa<FloatType>(t) ? Value(arith::BitcastOp::create(b, loc, i64, v)) : v;
  Value lo = shfl(arith::TruncIOp::create(b, loc, i32, bits));
  Value hi = shfl(arith::TruncIOp::create(
      b, loc, i32, arith::ShRUIOp::create(b, loc, bits, arith::ConstantIntOp::create(b, loc, 32, 64))));
  Value joined = arith::OrIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, lo),
                                      arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, hi),
                                                            arith::ConstantIntOp::create(b, loc, 32, 64)));
  return isa<FloatType>(t) ? Value(arith::BitcastOp::create(b, loc, t, joined)) : joined;
}

struct ReduceLowering : OpConversionPattern<ReduceOp> {
  ReduceLowering(TypeConverter &tc, MLIRContext *ctx, SharedMemory &smem) : OpConversionPattern(tc, ctx), smem(smem) {}
  SharedMemory &smem;

  LogicalResult matchAndRewrite(ReduceOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    ThreadLayout src = ThreadLayout::get(srcType);
    unsigned axis = op.getAxis();
    ReducePlan plan = planReduce(src.linear, axis);
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] tile.reduce at " << loc << " along axis " << axis << ": "
                            << (plan.unsupported.empty() ? "" : "unsupported, " + plan.unsupported + "; ")
                            << plan.laneBits.size() << " shuffle round(s), " << plan.warpsAlongAxis()
                            << " warp(s) along the axis" << (plan.warpsAlongAxis() > 1 ? " (through scratch)" : "")
                            << "\n");
    if (!plan.unsupported.empty())
      return op.emitOpError("lowering: cannot reduce a tensor of layout ")
             << srcType.getEncoding() << " along axis " << axis << ": " << plan.unsupported;

    // Result registers: for a tensor result its layout's; for a scalar, one. The result's
    // lanes and warps must hold what the source's do once the axis is dropped (a slice
    // of the source's layout along the axis does).
    auto resType = dyn_cast<RankedTensorType>(op.getType());
    std::optional<ThreadLayout> res;
    if (resType) res = ThreadLayout::get(resType);
    auto srcDimOf = [&](unsigned resDim) { return resDim < axis ? resDim : resDim + 1; };
    auto mismatch = [&]() {
      return op.emitOpError("lowering: the result layout ")
             << (resType ? resType.getEncoding() : Attribute()) << " does not hold the reduction of the source layout "
             << srcType.getEncoding() << " along axis " << axis << " (expected a slice of it)";
    };
    for (const char *name : {"lane", "warp"}) {
      if (res && res->linear.getInDimSizeLog2(name) != src.linear.getInDimSizeLog2(name)) return mismatch();
      for (int bit = 0; bit < src.linear.getInDimSizeLog2(name); ++bit)
        for (unsigned d = 0; d < src.rank(); ++d) {
          if (d == axis) continue;
          int32_t want = src.linear.getBasis(name, bit)[d];
          int32_t got = res ? res->linear.getBasis(name, bit)[d < axis ? d : d - 1] : 0;
          if (want != got) return mismatch();
        }
    }
    // One accumulator per distinct off-axis coordinate, numbered in result-register order.
    std::map<std::vector<int32_t>, unsigned> keyOf;
    SmallVector<unsigned> resultKey;
    unsigned numResults = res ? res->numRegs() : 1;
    for (unsigned rr = 0; rr < numResults; ++rr) {
      std::vector<int32_t> coord;
      for (unsigned d = 0; res && d < res->rank(); ++d) coord.push_back(res->regCoord(rr, d));
      resultKey.push_back(keyOf.emplace(std::move(coord), keyOf.size()).first->second);
    }
    auto srcKey = [&](unsigned r) -> std::optional<unsigned> {
      std::vector<int32_t> coord;
      for (unsigned d = 0; res && d < res->rank(); ++d) coord.push_back(src.regCoord(r, srcDimOf(d)));
      auto it = keyOf.find(coord);
      return it == keyOf.end() ? std::nullopt : std::optional<unsigned>(it->second);
    };

    Type elem = getTypeConverter()->convertType(srcType.getElementType());
    Combiner comb{rewriter, loc, op.getKind(), elem};
    bool withIndex = isArgKind(op.getKind());
    IntBuilder ib{rewriter, loc};
    ThreadPosition pos = emitThreadPosition(rewriter, loc, src);

    // 1. Within the thread, in increasing register (= index) order; copies of an element
    //    the thread holds twice count once. Where no order changes the result (max, min,
    //    integer sums), pairwise: a tree log2 n deep instead of a chain of n dependent
    //    instructions (an attention row max: 32 FMNMX back to back, each waiting for the last).
    SmallVector<SmallVector<Partial>> elements(keyOf.size());
    SmallVector<unsigned> representative(keyOf.size(), 0); // a source register of each result
    for (unsigned r = 0; r < src.numRegs(); ++r) {
      if (src.isRegisterReplica(r)) continue;
      std::optional<unsigned> key = srcKey(r);
      if (!key) return mismatch();
      Partial p{adaptor.getSrc()[r], {}};
      if (withIndex) p.index = emitCoord(rewriter, loc, src, pos, r, axis);
      if (elements[*key].empty()) representative[*key] = r;
      elements[*key].push_back(p);
    }
    const bool anyOrder = op.getKind() == ReduceKind::Max || op.getKind() == ReduceKind::Min ||
                          (op.getKind() == ReduceKind::Sum && !comb.isFloat());
    SmallVector<std::optional<Partial>> acc(keyOf.size());
    for (unsigned key = 0; key < keyOf.size(); ++key) {
      SmallVector<Partial> level = std::move(elements[key]);
      if (level.empty()) return mismatch();
      while (anyOrder && level.size() > 1) {
        SmallVector<Partial> next;
        for (size_t i = 0; i + 1 < level.size(); i += 2) next.push_back(comb.combine(level[i], level[i + 1]));
        if (level.size() % 2) next.push_back(level.back());
        level = std::move(next);
      }
      acc[key] = level.front();
      for (size_t i = 1; i < level.size(); ++i) acc[key] = comb.combine(*acc[key], level[i]);
    }

    // 2. Across the lanes whose bits move along the axis: butterfly (lanes that only hold
    //    copies have the same partial already).
    for (int bit : plan.laneBits)
      for (auto &a : acc) {
        Partial other{shuffleXor(rewriter, loc, a->value, 1u << bit), {}};
        if (withIndex) other.index = shuffleXor(rewriter, loc, a->index, 1u << bit);
        a = comb.combine(*a, other);
      }

    // 3. Across warps along the axis: each warp's partial goes to shared memory at
    //    [result element][warp along the axis]; every thread then combines them in order.
    if (unsigned warps = plan.warpsAlongAxis(); warps > 1) {
      ReduceScratch scratch = reduceScratch(op);
      Value base = smem.scratch(rewriter, loc, op, scratch.bytes);
      Value indexBase = withIndex ? Value(LLVM::GEPOp::create(rewriter, loc, base.getType(), rewriter.getI8Type(), base,
                                                              ValueRange{ib.c(scratch.indexOffset)}))
                                  : Value();
      // The warp's index along the axis: its axis bits, packed (one shift and mask when
      // they are consecutive, as in blocked layouts).
      Value warpAlong;
      bool consecutive = plan.warpBits.back() - plan.warpBits.front() + 1 == int(plan.warpBits.size());
      if (consecutive) {
        warpAlong = ib.urem(ib.udiv(pos.warp, int64_t(1) << plan.warpBits.front()), warps);
      } else {
        warpAlong = ib.c(0);
        for (unsigned i = 0; i < plan.warpBits.size(); ++i) {
          Value bitValue = ib.urem(ib.udiv(pos.warp, int64_t(1) << plan.warpBits[i]), 2);
          warpAlong = ib.add(warpAlong, ib.mul(bitValue, ib.c(int64_t(1) << i)));
        }
      }
      // The slot of a result element is its row-major index over every result dimension
      // (a rank-3 source has two), times the warps along the axis.
      SmallVector<Value> slot(acc.size());
      for (unsigned key = 0; key < acc.size(); ++key) {
        Value elemIndex = ib.c(0);
        for (unsigned d = 0; res && d < res->rank(); ++d)
          elemIndex = ib.add(ib.mul(elemIndex, ib.c(resType.getDimSize(d))),
                             emitCoord(rewriter, loc, src, pos, representative[key], srcDimOf(d)));
        slot[key] = ib.mul(elemIndex, ib.c(warps));
      }
      // (The barrier before these writes, where earlier reads need one, is tile-insert-barriers'.)
      for (unsigned key = 0; key < acc.size(); ++key) {
        Value at = ib.add(slot[key], warpAlong);
        LLVM::StoreOp::create(rewriter, loc, toShared(rewriter, loc, acc[key]->value),
                              sharedElementPtr(rewriter, loc, base, elem, at));
        if (withIndex)
          LLVM::StoreOp::create(rewriter, loc, acc[key]->index,
                                sharedElementPtr(rewriter, loc, indexBase, rewriter.getI32Type(), at));
      }
      emitProgramBarrier(rewriter, loc, op);
      for (unsigned key = 0; key < acc.size(); ++key) {
        std::optional<Partial> total;
        for (unsigned w = 0; w < warps; ++w) {
          Value at = ib.add(slot[key], ib.c(w));
          Partial p{fromShared(rewriter, loc,
                               LLVM::LoadOp::create(rewriter, loc, sharedStorageType(elem),
                                                    sharedElementPtr(rewriter, loc, base, elem, at)),
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
    for (unsigned rr = 0; rr < numResults; ++rr) {
      auto &a = acc[resultKey[rr]];
      results.push_back(withIndex ? a->index : a->value);
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
};

} // namespace

void mlir::tile::populateReducePatterns(TileTypeConverter &converter, RewritePatternSet &patterns, SharedMemory &smem) {
  patterns.add<ReduceLowering>(converter, patterns.getContext(), smem);
}
