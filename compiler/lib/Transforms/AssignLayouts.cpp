//===- AssignLayouts.cpp - give every tensor a thread layout --------------===//
// One blocked layout per tensor rank keeps elementwise code free of data movement:
// every rank-k tensor of the kernel shares it, whatever its shape (smaller shapes
// replicate). Reductions produce slices of their operand's layout, and expand_dims of
// a slice gives back the parent; only where a slice meets a blocked tensor is a
// convert_layout inserted. Dots get the CUDA-core (FMA) layouts here; the later passes
// refine: coalesce (per-access order), accelerate-matmul (tensor cores), and
// remove-layout-conversions (rebuilding cheap values instead of converting them).
#include "LayoutRewrite.h"
#include "tile/Transforms/Passes.h"
#include "tile/Transforms/Preconditions.h"

#include "llvm/Support/Debug.h"

#include <numeric>

namespace mlir::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

#define DEBUG_TYPE "tile-assign-layouts"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct AssignLayouts : mlir::tile::impl::TileAssignLayoutsBase<AssignLayouts> {
  using Base::Base;

  /// The per-rank default layouts of the function being processed.
  DenseMap<unsigned, BlockedLayoutAttr> defaults;
  unsigned warps = 4;

  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (!func->hasAttr(kKernelAttr)) return;
      if (failed(processKernel(func))) signalPassFailure();
    });
  }

  unsigned warpsOf(func::FuncOp func) { return numWarps > 0 ? unsigned(numWarps) : kernelWarps(func); }

  LogicalResult processKernel(func::FuncOp func) {
    if (failed(requireTracedSignature(func))) return failure();
    warps = warpsOf(func);
    setKernelNumWarps(func, warps);
    LLVM_DEBUG(llvm::dbgs() << "kernel @" << func.getSymName() << ": layouts over " << warps << " warps"
                            << (numWarps > 0 ? " (the pass option)\n" : " (the kernel's tile.num_warps, else 4)\n"));
    chooseDefaults(func, warps);
    LogicalResult result = success();
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (failed(assign(op))) result = failure();
    });
    return result;
  }

  /// The largest shape of each rank, and the widest access its memory ops allow.
  void chooseDefaults(func::FuncOp func, unsigned warps) {
    defaults.clear();
    DenseMap<unsigned, SmallVector<int64_t>> largest;
    auto consider = [&](Type t) {
      auto rt = dyn_cast<RankedTensorType>(t);
      if (!rt) return;
      auto &best = largest[rt.getRank()];
      if (best.empty() ||
          rt.getNumElements() > std::accumulate(best.begin(), best.end(), int64_t(1), std::multiplies<>()))
        best.assign(rt.getShape().begin(), rt.getShape().end());
    };
    func.walk([&](Operation *op) {
      for (Type t : op->getResultTypes()) consider(t);
    });
    DenseMap<unsigned, unsigned> vec = accessVectorWidths(func);
    for (auto &[rank, shape] : largest)
      defaults[rank] = defaultBlockedLayout(func.getContext(), shape, warps, std::max(1u, vec.lookup(rank)));
  }

  LogicalResult assign(Operation *op) {
    OpBuilder b(op);
    // Loop-carried tensors take their initial value's layout; yields convert to it.
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (auto [init, arg, res] : llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(), loop.getResults()))
        if (isUnlaidTensor(arg.getType())) {
          arg.setType(init.getType());
          res.setType(init.getType());
        }
      return success();
    }
    if (auto yield = dyn_cast<scf::YieldOp>(op)) {
      Operation *parent = yield->getParentOp();
      for (OpOperand &operand : yield->getOpOperands()) {
        Type want = parent->getResult(operand.getOperandNumber()).getType();
        if (isa<scf::IfOp>(parent) && isUnlaidTensor(want)) {
          parent->getResult(operand.getOperandNumber()).setType(operand.get().getType());
          continue;
        }
        if (auto rt = dyn_cast<RankedTensorType>(want)) operand.set(convertTo(b, operand.get(), rt.getEncoding()));
      }
      return success();
    }
    if (isa<ReduceOp>(op)) return assignReduce(b, cast<ReduceOp>(op));
    if (auto dot = dyn_cast<DotOp>(op)) return assignDot(b, dot);
    if (auto trans = dyn_cast<TransOp>(op)) return assignTrans(b, trans);
    if (auto reshape = dyn_cast<ReshapeOp>(op)) return assignReshape(reshape);
    if (isa<ExpandDimsOp>(op)) return assignExpandDims(b, cast<ExpandDimsOp>(op));
    if (isa<ConvertLayoutOp>(op)) return success();

    // Elementwise-like ops (and stores): all tensor operands and results share one
    // layout. Slices (from reductions) win over defaults, which they meet only here.
    auto pick = [](Attribute cur, Type t) -> Attribute {
      Attribute l = layoutOf(t);
      if (l && (!cur || isa<SliceLayoutAttr>(l))) return l;
      return cur;
    };
    Attribute chosen;
    for (Value v : op->getOperands()) chosen = pick(chosen, v.getType());
    for (OpResult r : op->getResults()) {
      if (!isUnlaidTensor(r.getType())) continue;
      auto rt = cast<RankedTensorType>(r.getType());
      if (!chosen) chosen = defaults.lookup(rt.getRank());
      if (!chosen) return op->emitError("no layout for rank ") << rt.getRank();
      r.setType(withLayout(rt, chosen));
      if (auto c = dyn_cast<arith::ConstantOp>(op))
        if (auto splat = dyn_cast<SplatElementsAttr>(c.getValue()))
          c.setValueAttr(splat.resizeSplat(cast<ShapedType>(r.getType())));
    }
    if (!chosen || isa<scf::IfOp, scf::ForOp>(op)) return success();
    for (OpOperand &operand : op->getOpOperands())
      if (Attribute l = layoutOf(operand.get().getType()); l && l != chosen)
        operand.set(convertTo(b, operand.get(), chosen));
    return success();
  }

  /// A blocked layout for `v`'s rank: its own, else (a slice) the default, converted to.
  BlockedLayoutAttr blockedOperand(OpBuilder &b, OpOperand &operand) {
    if (auto blocked = dyn_cast<BlockedLayoutAttr>(layoutOf(operand.get().getType()))) return blocked;
    BlockedLayoutAttr target = defaults.lookup(cast<RankedTensorType>(operand.get().getType()).getRank());
    operand.set(convertTo(b, operand.get(), target));
    return target;
  }

  LogicalResult assignReduce(OpBuilder &b, ReduceOp reduce) {
    auto res = dyn_cast<RankedTensorType>(reduce.getType());
    if (!res) return success(); // 1-D → scalar: every thread holds the result
    // A slice's slice is not a layout we have: reduce a sliced operand from the default.
    BlockedLayoutAttr parent = blockedOperand(b, reduce.getSrcMutable());
    reduce.getResult().setType(withLayout(res, SliceLayoutAttr::get(reduce.getContext(), reduce.getAxis(), parent)));
    return success();
  }

  /// The dot on CUDA cores (Conversion/Dot.cpp): the result keeps the accumulator's
  /// blocked layout C; a gets C's distribution of rows with the whole K in each thread, b
  /// likewise for columns, so the product needs no data movement. (accelerate-matmul moves
  /// the dots that fit tensor cores to #tile.mma.)
  LogicalResult assignDot(OpBuilder &b, DotOp dot) {
    MLIRContext *ctx = dot.getContext();
    BlockedLayoutAttr c = blockedOperand(b, dot.getAccMutable());
    const unsigned k = dot.getA().getType().getDimSize(1);
    auto operandLayout = [&](unsigned spt0, unsigned spt1) {
      return BlockedLayoutAttr::get(ctx, {spt0, spt1}, c.getThreadsPerWarp(), c.getWarpsPerCTA(), c.getOrder());
    };
    dot.getAMutable().assign(convertTo(b, dot.getA(), operandLayout(c.getSizePerThread()[0], k)));
    dot.getBMutable().assign(convertTo(b, dot.getB(), operandLayout(k, c.getSizePerThread()[1])));
    dot.getResult().setType(withLayout(dot.getType(), c));
    return success();
  }

  /// The source's blocked layout with its dimensions permuted: result dimension i is
  /// distributed as source dimension order[i], so the registers do not move.
  LogicalResult assignTrans(OpBuilder &b, TransOp trans) {
    BlockedLayoutAttr src = blockedOperand(b, trans.getSrcMutable());
    ArrayRef<int32_t> order = trans.getOrder();
    SmallVector<unsigned> spt, tpw, wpc, fastest;
    SmallVector<unsigned> position(order.size());
    for (unsigned i = 0; i < order.size(); ++i) {
      spt.push_back(src.getSizePerThread()[order[i]]);
      tpw.push_back(src.getThreadsPerWarp()[order[i]]);
      wpc.push_back(src.getWarpsPerCTA()[order[i]]);
      position[order[i]] = i;
    }
    for (unsigned d : src.getOrder()) fastest.push_back(position[d]);
    trans.getResult().setType(
        withLayout(trans.getType(), BlockedLayoutAttr::get(trans.getContext(), spt, tpw, wpc, fastest)));
    return success();
  }

  /// Reshape moves elements through shared memory (Conversion/ShapeOps.cpp), so the
  /// result simply takes its rank's default.
  LogicalResult assignReshape(ReshapeOp reshape) {
    BlockedLayoutAttr target = defaults.lookup(reshape.getType().getRank());
    if (!target) return reshape.emitError("no layout for rank ") << reshape.getType().getRank();
    reshape.getResult().setType(withLayout(reshape.getType(), target));
    return success();
  }

  LogicalResult assignExpandDims(OpBuilder &b, ExpandDimsOp expand) {
    auto resType = expand.getType();
    BlockedLayoutAttr target = defaults.lookup(resType.getRank());
    if (!target) return expand.emitError("no layout for rank ") << resType.getRank();
    auto slice = SliceLayoutAttr::get(expand.getContext(), expand.getAxis(), target);
    expand.getSrcMutable().assign(convertTo(b, expand.getSrc(), slice));
    expand.getResult().setType(withLayout(resType, target));
    return success();
  }
};

} // namespace
