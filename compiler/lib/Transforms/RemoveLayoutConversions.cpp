//===- RemoveLayoutConversions.cpp - fewer layout conversions ------------===//
// A tile.convert_layout moves data between threads (through shared memory, Conversion/
// ShapeOps.cpp), so the passes before this one insert them freely and this one removes
// what it can:
//   - layout propagation: every tensor-core result's #tile.mma layout flows forward through
//     what is computed from it, loop-carried values included (LayoutPropagation.cpp);
//   - rematerialisation: a conversion of a cheap value (index arithmetic, an address
//     tensor: ranges, splats, constants, arith, addptr, broadcast, expand_dims; a load of
//     fewer elements than the kernel has threads, as Triton's) becomes the value recomputed
//     in the wanted layout;
//   - chains: convert(convert(x)) converts x once, and a conversion to x's own layout is x
//     (tile.convert_layout's folder and canonicalisation pattern, applied here);
//   - propagation: a chain of elementwise ops converted out of a layout L and back runs in
//     L (no conversion left); an elementwise op with several operands converted from L
//     runs in L and its result is converted once instead.
//   - buffers: a shared-memory buffer written from a conversion out of an accumulator
//     layout is written from the accumulator layout itself.
#include "LayoutPropagation.h"
#include "LayoutRewrite.h"
#include "tile/Transforms/Passes.h"
#include "tile/Analysis/LayoutConversion.h"
#include "tile/Transforms/Preconditions.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEREMOVELAYOUTCONVERSIONS
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

#define DEBUG_TYPE "tile-remove-layout-conversions"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Ops that compute each element from the same element of their operands, whatever the
/// layout: they may run in any layout their operands share.
bool isElementwise(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumRegions() != 0 || !isa<RankedTensorType>(op->getResult(0).getType()))
    return false;
  if (!op->hasTrait<OpTrait::Elementwise>() && !isa<AddPtrOp, arith::SelectOp>(op)) return false;
  auto shape = cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  return llvm::all_of(op->getOperands(), [&](Value o) {
    auto t = dyn_cast<RankedTensorType>(o.getType());
    return !t || t.getShape() == shape;
  });
}

/// Registers per thread of a tensor of `type` (a distributed layout).
int64_t registersOf(RankedTensorType type) { return toLinearLayout(type).getInDimSize("register"); }

/// `type` (rank 1) in a blocked layout in which every warp holds the whole tensor (lanes and
/// registers cover it; the kernel's other warps repeat it), or null where one warp cannot.
RankedTensorType warpReplicated(RankedTensorType type, unsigned warps) {
  const unsigned bytes = std::max(1u, type.getElementTypeBitWidth() / 8);
  BlockedLayoutAttr one = defaultBlockedLayout(type.getContext(), type.getShape(), 1, 16 / bytes);
  SmallVector<unsigned> wpc(one.getWarpsPerCTA());
  wpc[one.getOrder().back()] = warps; // the slowest dimension, whole in one warp already
  auto layout =
      BlockedLayoutAttr::get(type.getContext(), one.getSizePerThread(), one.getThreadsPerWarp(), wpc, one.getOrder());
  RankedTensorType replicated = withLayout(type, layout);
  const ::tile::layout::LinearLayout ll = toLinearLayout(replicated);
  for (const auto &[inDim, bases] : ll.getBases())
    for (const std::vector<int32_t> &basis : bases)
      if (inDim == "warp" && llvm::any_of(basis, [](int32_t c) { return c != 0; })) return {};
  return replicated;
}

/// convert_layout of a cheap producer → the producer recomputed in the target layout. A row
/// producer that loads fewer elements than the kernel has threads (Rebuild::ReplicatedLoads):
/// loaded in the target layout when that holds no more registers per thread than a layout
/// in which each warp holds the whole tensor; else, where the target holds the whole tensor
/// in every warp (a row vector broadcast over an accumulator's columns: attention's log-sum-
/// exp, a bias), loaded in such a layout and converted by shuffles within warps: a few
/// registers live until the use, no round trip through shared memory, no barrier.
bool rematerializeCheap(func::FuncOp func) {
  SmallVector<ConvertLayoutOp> converts;
  func.walk([&](ConvertLayoutOp c) { converts.push_back(c); });
  const unsigned warps = kernelWarps(func);
  bool changed = false;
  for (ConvertLayoutOp cvt : converts) {
    Value src = cvt.getSrc();
    RankedTensorType type = cvt.getType();
    Attribute layout = type.getEncoding();
    OpBuilder b(cvt);
    Operation *old = src.getDefiningOp();
    const bool cheap = rebuildableIn(src, layout);
    // Rows only (rank 1: a broadcast over an accumulator's columns or rows), what was measured.
    const bool reloadable = !cheap && type.getRank() == 1 && rebuildableIn(src, layout, Rebuild::ReplicatedLoads);
    const RankedTensorType replicated =
        reloadable && isa<DistributedLayoutInterface>(layout) ? warpReplicated(type, warps) : RankedTensorType();
    if (cheap || (reloadable && (!replicated || registersOf(type) <= registersOf(replicated)))) {
      LLVM_DEBUG(llvm::dbgs() << "rematerialise the cheap operand of the conversion at " << cvt.getLoc() << " in "
                              << layout << "\n");
      cvt.replaceAllUsesWith(rematerialize(b, src, type));
      cvt.erase();
    } else if (replicated && layoutOf(src.getType()) != replicated.getEncoding() &&
               planLayoutConversion(replicated, type).kind != LayoutConversionKind::SharedMemory &&
               rebuildableIn(src, replicated.getEncoding(), Rebuild::ReplicatedLoads)) {
      LLVM_DEBUG(llvm::dbgs() << "load the operand of the conversion at " << cvt.getLoc() << " in "
                              << replicated.getEncoding() << ", whole in every warp, and shuffle it\n");
      cvt.getSrcMutable().assign(rematerialize(b, src, withLayout(src.getType(), replicated.getEncoding())));
    } else {
      continue;
    }
    eraseIfDead(old);
    changed = true;
  }
  return changed;
}

/// convert(convert(x)) → convert(x); convert(x) to x's own layout → x: tile.convert_layout's
/// folder and canonicalisation patterns, applied to the conversions only (the rest of the IR
/// is the canonicalizer's, which runs after this pass).
bool foldChains(func::FuncOp func, const FrozenRewritePatternSet &chainPatterns) {
  SmallVector<Operation *> converts;
  func.walk([&](ConvertLayoutOp c) { converts.push_back(c); });
  if (converts.empty()) return false;
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingOps).enableConstantCSE(false);
  bool changed = false;
  (void)applyOpPatternsGreedily(converts, chainPatterns, config, &changed);
  LLVM_DEBUG(if (changed) llvm::dbgs() << "folded conversion chains in @" << func.getSymName() << "\n");
  return changed;
}

/// The layout to run elementwise `op` in instead of its own: the one two or more of its
/// converted tensor operands come from, when all converted operands come from it and the
/// others can be rebuilt in it (one conversion of the result replaces several). Else null.
Attribute mergingLayout(Operation *op) {
  Attribute source;
  unsigned converted = 0;
  for (Value o : op->getOperands())
    if (auto cvt = o.getDefiningOp<ConvertLayoutOp>()) {
      Attribute l = layoutOf(cvt.getSrc().getType());
      if (source && l != source) return {};
      source = l;
      ++converted;
    }
  // Blocked and slice layouts only: every op and cheap value lowers in those.
  if (converted < 2 || !isa<BlockedLayoutAttr, SliceLayoutAttr>(source)) return {};
  for (Value o : op->getOperands())
    if (isa<RankedTensorType>(o.getType()) && !o.getDefiningOp<ConvertLayoutOp>() && layoutOf(o.getType()) != source &&
        !rebuildableIn(o, source))
      return {};
  return source;
}

/// Whether `v` can be computed in `layout` without a conversion: it is already, it is a
/// conversion from there, it is rebuildable there, or it is an elementwise op used only
/// here whose operands can (a chain that was converted out of `layout` and back).
bool canRunIn(Value v, Attribute layout, int depth = 0) {
  if (layoutOf(v.getType()) == layout) return true;
  if (auto cvt = v.getDefiningOp<ConvertLayoutOp>(); cvt && layoutOf(cvt.getSrc().getType()) == layout) return true;
  if (rebuildableIn(v, layout)) return true;
  Operation *op = v.getDefiningOp();
  if (!op || depth > 8 || !v.hasOneUse() || !isElementwise(op)) return false;
  return llvm::all_of(op->getOperands(),
                      [&](Value o) { return !isa<RankedTensorType>(o.getType()) || canRunIn(o, layout, depth + 1); });
}

/// `v` computed in `layout` (canRunIn(v, layout) holds).
Value runIn(OpBuilder &b, Value v, Attribute layout) {
  if (layoutOf(v.getType()) == layout) return v;
  if (auto cvt = v.getDefiningOp<ConvertLayoutOp>(); cvt && layoutOf(cvt.getSrc().getType()) == layout)
    return cvt.getSrc();
  if (rebuildableIn(v, layout)) return rematerialize(b, v, withLayout(v.getType(), layout));
  Operation *op = v.getDefiningOp();
  IRMapping map;
  for (Value o : op->getOperands())
    if (isa<RankedTensorType>(o.getType())) map.map(o, runIn(b, o, layout));
  Operation *clone = b.clone(*op, map);
  clone->getResult(0).setType(withLayout(v.getType(), layout));
  return clone->getResult(0);
}

/// Propagation, backward: convert(f(convert(x : L -> M)) : M -> L) where f is a chain of
/// elementwise ops → f computed in L, no conversion.
bool hoistConversions(func::FuncOp func) {
  SmallVector<ConvertLayoutOp> converts;
  func.walk([&](ConvertLayoutOp c) { converts.push_back(c); });
  bool changed = false;
  for (ConvertLayoutOp cvt : converts) {
    Attribute layout = cvt.getType().getEncoding();
    Operation *producer = cvt.getSrc().getDefiningOp();
    if (!isa<BlockedLayoutAttr, SliceLayoutAttr>(layout) || !producer || !isElementwise(producer) ||
        !canRunIn(cvt.getSrc(), layout))
      continue;
    LLVM_DEBUG(llvm::dbgs() << "hoist the conversion at " << cvt.getLoc() << ": its elementwise chain runs in "
                            << layout << "\n");
    OpBuilder b(cvt);
    Value replacement = runIn(b, cvt.getSrc(), layout);
    cvt.replaceAllUsesWith(replacement);
    cvt.erase();
    eraseIfDead(producer);
    changed = true;
  }
  return changed;
}

/// Propagation, forward: an elementwise op whose operands are converted from one layout
/// runs there, and its result is converted once (see mergingLayout).
bool mergeConversions(func::FuncOp func) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (isElementwise(op)) ops.push_back(op);
  });
  bool changed = false;
  for (Operation *op : ops) {
    Attribute source = mergingLayout(op);
    if (!source) continue;
    LLVM_DEBUG(llvm::dbgs() << "run " << op->getName() << " at " << op->getLoc() << " in " << source
                            << ", where its converted operands come from; convert its result once\n");
    OpBuilder b(op);
    for (OpOperand &o : op->getOpOperands()) {
      if (!isa<RankedTensorType>(o.get().getType())) continue;
      Operation *old = o.get().getDefiningOp();
      if (auto cvt = dyn_cast_or_null<ConvertLayoutOp>(old)) o.set(cvt.getSrc());
      else if (layoutOf(o.get().getType()) != source)
        o.set(rematerialize(b, o.get(), withLayout(o.get().getType(), source)));
      else continue;
      eraseIfDead(old);
    }
    Value result = op->getResult(0);
    Type wanted = result.getType();
    result.setType(withLayout(wanted, source));
    b.setInsertionPointAfter(op);
    auto back = ConvertLayoutOp::create(b, op->getLoc(), wanted, result);
    result.replaceAllUsesExcept(back, back);
    changed = true;
  }
  return changed;
}

/// local_alloc(convert(x)) with x in a tensor-core accumulator layout → local_alloc(x): each
/// thread writes its own registers into the buffer, so the conversion's round trip through
/// shared memory buys nothing (attention's dSᵀ, computed from an accumulator, written as the
/// next wgmma's b).
bool allocateFromAccumulator(func::FuncOp func) {
  bool changed = false;
  func.walk([&](LocalAllocOp alloc) {
    auto cvt = alloc.getSrc() ? alloc.getSrc().getDefiningOp<ConvertLayoutOp>() : ConvertLayoutOp();
    if (!cvt || !isa<MmaLayoutAttr>(layoutOf(cvt.getSrc().getType()))) return;
    LLVM_DEBUG(llvm::dbgs() << "the buffer at " << alloc.getLoc() << " is written from the accumulator layout\n");
    alloc.getSrcMutable().assign(cvt.getSrc());
    eraseIfDead(cvt);
    changed = true;
  });
  return changed;
}

struct RemoveLayoutConversions : mlir::tile::impl::TileRemoveLayoutConversionsBase<RemoveLayoutConversions> {
  void runOnOperation() override {
    if (failed(requireLayouts(getOperation(), getArgument()))) return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    ConvertLayoutOp::getCanonicalizationPatterns(patterns, &getContext());
    const FrozenRewritePatternSet chainPatterns(std::move(patterns));
    getOperation().walk([&](func::FuncOp func) {
      if (!func->hasAttr(kKernelAttr)) return;
      DenseSet<Operation *> loadsBefore;
      func.walk([&](LoadOp l) { loadsBefore.insert(l); });
      // Tensor-core results first keep their layout through what is computed from them
      // (LayoutPropagation.cpp); the rounds below clean up after it.
      propagateAccumulatorLayouts(func);
      // Each step can expose work for the others (a propagated conversion meets another
      // and folds; a folded chain leaves a cheap value's conversion); a few rounds reach
      // the fixed point of kernels seen so far.
      for (int round = 0; round < 4; ++round) {
        bool changed = rematerializeCheap(func);
        changed |= foldChains(func, chainPatterns);
        changed |= hoistConversions(func);
        changed |= mergeConversions(func);
        changed |= foldChains(func, chainPatterns);
        changed |= allocateFromAccumulator(func);
        LLVM_DEBUG(llvm::dbgs() << "@" << func.getSymName() << " round " << round
                                << (changed ? ": changed\n" : ": fixed point\n"));
        if (!changed) break;
      }
      // Loads recomputed in another layout move as many elements per instruction as that
      // layout and their addresses allow (tile-coalesce's rule, which ran before).
      AxisInfoAnalysis axis(func);
      func.walk([&](LoadOp l) {
        if (!loadsBefore.contains(l)) setVectorWidth(l, accessVectorWidth(axis, l));
      });
    });
  }
};

} // namespace
