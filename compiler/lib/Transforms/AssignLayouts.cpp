//===- AssignLayouts.cpp - give every tensor a thread layout --------------===//
// One blocked layout per tensor rank keeps elementwise code free of data movement:
// every rank-k tensor of the kernel shares it, whatever its shape (smaller shapes
// replicate). Reductions produce slices of their operand's layout, and expand_dims of
// a slice gives back the parent; only where a slice meets a blocked tensor is a
// convert_layout needed, and for cheap producers we rebuild the producer instead.
#include "tile/Analysis/Layouts.h"
#include "tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include <numeric>
#include <optional>

namespace mlir::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

RankedTensorType withLayout(Type t, Attribute layout) {
  auto rt = cast<RankedTensorType>(t);
  return RankedTensorType::get(rt.getShape(), rt.getElementType(), layout);
}

bool isUnlaidTensor(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && !rt.getEncoding();
}

struct AssignLayouts : mlir::tile::impl::TileAssignLayoutsBase<AssignLayouts> {
  using Base::Base;

  /// The per-rank default layouts of the function being processed.
  DenseMap<unsigned, BlockedLayoutAttr> defaults;
  /// The per-rank vector width the defaults were sized for.
  DenseMap<unsigned, unsigned> vectorWidth;
  unsigned warps = 4;

  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp func) {
      if (!func->hasAttr(kKernelAttr)) return;
      if (failed(processKernel(func))) signalPassFailure();
    });
  }

  unsigned warpsOf(func::FuncOp func) {
    if (numWarps > 0) return numWarps;
    if (auto a = func->getAttrOfType<IntegerAttr>(kNumWarpsAttr)) return a.getInt();
    return 4;
  }

  LogicalResult processKernel(func::FuncOp func) {
    // Layouts start at the ops that make tensors; a tensor argument has no producer.
    for (BlockArgument arg : func.getArguments())
      if (isa<RankedTensorType>(arg.getType()))
        return func.emitError("kernel arguments must be scalars or pointers, argument ")
               << arg.getArgNumber() << " is " << arg.getType();
    warps = warpsOf(func);
    func->setAttr(kNumWarpsAttr, IntegerAttr::get(IntegerType::get(func.getContext(), 32), warps));
    chooseDefaults(func, warps);
    LogicalResult result = success();
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (failed(assign(op))) result = failure();
    });
    if (failed(result)) return failure();
    orderAccessesByContiguity(func);
    rematerializeCheapConversions(func);
    return success();
  }

  /// A global load or store whose addresses run contiguously along another dimension
  /// than its layout's fastest (a transposed store: `out + cols[None, :] * m + rows[:, None]`)
  /// gets a layout with that dimension fastest, so that it is vectorised and coalesced
  /// there; the value moves through a layout conversion (a shared-memory transpose) and
  /// the addresses and mask are recomputed in the new layout.
  void orderAccessesByContiguity(func::FuncOp func) {
    AxisInfoAnalysis axis(func);
    SmallVector<Operation *> accesses;
    func.walk([&](Operation *op) {
      if (isa<LoadOp, StoreOp>(op)) accesses.push_back(op);
    });
    for (Operation *op : accesses) {
      auto load = dyn_cast<LoadOp>(op);
      Value ptr = load ? load.getPtr() : cast<StoreOp>(op).getPtr();
      Value mask = load ? load.getMask() : cast<StoreOp>(op).getMask();
      auto type = dyn_cast<RankedTensorType>(ptr.getType());
      auto current = type ? dyn_cast<BlockedLayoutAttr>(type.getEncoding()) : BlockedLayoutAttr();
      if (!current || type.getRank() < 2) continue;
      Type pointee = cast<PtrType>(type.getElementType()).getPointeeType();
      unsigned maxVec = std::max(1u, 16 / std::max(1u, pointee.getIntOrFloatBitWidth() / 8));
      int fastest = int(current.getOrder()[0]);
      unsigned bestWidth = memoryVectorWidth(axis, ptr, mask, maxVec, fastest);
      int best = fastest;
      for (int d = 0; d < int(type.getRank()); ++d)
        if (unsigned w = memoryVectorWidth(axis, ptr, mask, maxVec, d); w > bestWidth) best = d, bestWidth = w;
      if (best == fastest) continue;
      BlockedLayoutAttr layout = defaultBlockedLayout(op->getContext(), type.getShape(), warps, bestWidth, best);
      OpBuilder b(op);
      for (OpOperand &o : op->getOpOperands())
        if (isa<RankedTensorType>(o.get().getType())) o.set(convertTo(b, o.get(), layout));
      if (load) {
        auto used = cast<RankedTensorType>(load.getType());
        load.getResult().setType(withLayout(used, layout));
        b.setInsertionPointAfter(load);
        auto back = ConvertLayoutOp::create(b, load.getLoc(), used, load.getResult());
        load.getResult().replaceAllUsesExcept(back, back);
      }
    }
  }

  /// The largest shape of each rank, and the widest access its memory ops allow.
  void chooseDefaults(func::FuncOp func, unsigned warps) {
    defaults.clear();
    DenseMap<unsigned, SmallVector<int64_t>> largest;
    auto consider = [&](Type t) {
      auto rt = dyn_cast<RankedTensorType>(t);
      if (!rt) return;
      auto &best = largest[rt.getRank()];
      if (best.empty() || rt.getNumElements() > std::accumulate(best.begin(), best.end(), int64_t(1), std::multiplies<>()))
        best.assign(rt.getShape().begin(), rt.getShape().end());
    };
    func.walk([&](Operation *op) {
      for (Type t : op->getResultTypes()) consider(t);
    });
    AxisInfoAnalysis axis(func);
    DenseMap<unsigned, unsigned> vec;
    func.walk([&](Operation *op) {
      Value ptr, mask;
      if (auto l = dyn_cast<LoadOp>(op)) ptr = l.getPtr(), mask = l.getMask();
      else if (auto s = dyn_cast<StoreOp>(op)) ptr = s.getPtr(), mask = s.getMask();
      else return;
      if (auto rt = dyn_cast<RankedTensorType>(ptr.getType())) {
        unsigned w = memoryVectorWidth(axis, ptr, Value(), 16);
        unsigned &v = vec[rt.getRank()];
        v = std::max(v, w);
      }
    });
    vectorWidth.clear();
    for (auto &[rank, shape] : largest) {
      vectorWidth[rank] = vec.lookup(rank) ? vec[rank] : 1;
      defaults[rank] = defaultBlockedLayout(func.getContext(), shape, warps, vectorWidth[rank]);
    }
  }

  Value convertTo(OpBuilder &b, Value v, Attribute layout) {
    if (layoutOf(v.getType()) == layout) return v;
    return ConvertLayoutOp::create(b, v.getLoc(), withLayout(v.getType(), layout), v);
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
        if (auto rt = dyn_cast<RankedTensorType>(want))
          operand.set(convertTo(b, operand.get(), rt.getEncoding()));
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
    reduce.getResult().setType(
        withLayout(res, SliceLayoutAttr::get(reduce.getContext(), reduce.getAxis(), parent)));
    return success();
  }

  /// Warps for an mma.sync tile of M x N (each warp at least one 16 x 8 instruction
  /// tile, warps split along the longer side first), or nullopt when M x N is too small
  /// for `warps` warps.
  static std::optional<std::pair<unsigned, unsigned>> mmaWarps(int64_t m, int64_t n, unsigned warps) {
    unsigned wm = 1, wn = 1;
    while (wm * wn < warps) {
      bool canM = m % (16 * wm * 2) == 0, canN = n % (8 * wn * 2) == 0;
      if (canM && (!canN || m / (16 * wm) >= n / (8 * wn))) wm *= 2;
      else if (canN) wn *= 2;
      else return std::nullopt;
    }
    return std::make_pair(wm, wn);
  }

  /// tensor cores (mma.sync m16n8k16) for f16/bf16 on sm_80+ when the tile holds whole
  /// instruction tiles for every warp; else the FMA dot.
  std::optional<MmaLayoutAttr> mmaLayoutFor(DotOp dot) {
    auto a = dot.getA().getType(), b = dot.getB().getType();
    if (targetComputeCapability(dot) < 80 || !isa<Float16Type, BFloat16Type>(a.getElementType())) return std::nullopt;
    int64_t m = a.getDimSize(0), n = b.getDimSize(1), k = a.getDimSize(1);
    if (m % 16 || n % 8 || k % 16) return std::nullopt;
    auto func = dot->getParentOfType<func::FuncOp>();
    auto warps = mmaWarps(m, n, warpsOf(func));
    if (!warps) return std::nullopt;
    return MmaLayoutAttr::get(dot.getContext(), {warps->first, warps->second});
  }

  /// A K loop's accumulator: the dot's accumulator is a loop-carried value used only by
  /// the dot, and the dot's result is what the loop carries on. Such a loop carries the
  /// dot's layout instead, so no iteration converts (the initial value converts once).
  static bool isCarriedAccumulator(DotOp dot) {
    auto arg = dyn_cast<BlockArgument>(dot.getAcc());
    auto loop = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()) : scf::ForOp();
    if (!loop || arg.getArgNumber() == 0 || !arg.hasOneUse() || !dot->hasOneUse()) return false;
    unsigned index = arg.getArgNumber() - 1;
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    return yield.getOperand(index) == dot.getResult();
  }

  void carryInLayout(DotOp dot, Attribute layout) {
    auto arg = cast<BlockArgument>(dot.getAcc());
    auto loop = cast<scf::ForOp>(arg.getOwner()->getParentOp());
    unsigned index = arg.getArgNumber() - 1;
    auto type = withLayout(arg.getType(), layout);
    OpBuilder before(loop);
    loop.getInitArgsMutable()[index].assign(convertTo(before, loop.getInitArgs()[index], layout));
    arg.setType(type);
    loop.getResult(index).setType(type);
  }

  /// The dot's layouts. Tensor cores: the result in #tile.mma, the operands in
  /// #tile.dot_operand (converted through shared memory). CUDA cores (Conversion/Dot.cpp):
  /// the result keeps the accumulator's blocked layout C; a gets C's distribution of rows
  /// with the whole K in each thread, b likewise for columns, so the product needs no
  /// data movement.
  LogicalResult assignDot(OpBuilder &b, DotOp dot) {
    MLIRContext *ctx = dot.getContext();
    if (std::optional<MmaLayoutAttr> mma = mmaLayoutFor(dot)) {
      auto operand = [&](unsigned idx) { return DotOperandLayoutAttr::get(ctx, idx, *mma); };
      if (isCarriedAccumulator(dot)) carryInLayout(dot, *mma);
      else dot.getAccMutable().assign(convertTo(b, dot.getAcc(), *mma));
      fitLoadToShape(dot.getA());
      fitLoadToShape(dot.getB());
      dot.getAMutable().assign(convertTo(b, dot.getA(), operand(0)));
      dot.getBMutable().assign(convertTo(b, dot.getB(), operand(1)));
      dot.getResult().setType(withLayout(dot.getType(), *mma));
      return success();
    }
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

  /// A tensor-core operand goes to shared memory, so the load producing it may use any
  /// layout: give it one sized for its own shape instead of the rank's default, which a
  /// smaller tile would wrap around (several threads loading the same elements). Its
  /// address and mask computations are converted, which rematerialisation turns into
  /// recomputing them in the new layout.
  void fitLoadToShape(Value operand) {
    auto load = operand.getDefiningOp<LoadOp>();
    if (!load || !load->hasOneUse()) return;
    auto type = cast<RankedTensorType>(load.getType());
    auto current = dyn_cast<BlockedLayoutAttr>(type.getEncoding());
    if (!current) return;
    unsigned rank = type.getRank();
    BlockedLayoutAttr fitted = defaultBlockedLayout(load.getContext(), type.getShape(), warps, vectorWidth.lookup(rank) ? vectorWidth[rank] : 1);
    if (fitted == current) return;
    // Only where the addresses and mask can be recomputed in the new layout: moving them
    // through shared memory would cost more than the redundant loads it saves.
    for (Value o : load->getOperands())
      if (isa<RankedTensorType>(o.getType()) && !rebuildableIn(o, fitted)) return;
    OpBuilder b(load);
    for (OpOperand &o : load->getOpOperands())
      if (isa<RankedTensorType>(o.get().getType())) o.set(convertTo(b, o.get(), fitted));
    load.getResult().setType(withLayout(type, fitted));
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

  /// Whether `v` can be recomputed in another layout from scalars alone: ranges,
  /// splats, constants, and arith ops over those (index arithmetic such as
  /// `pid * BLOCK + arange(0, BLOCK)`), up to a small depth.
  static bool isCheap(Value v, int depth = 0) {
    Operation *op = v.getDefiningOp();
    if (!op || depth > 8) return false;
    if (isa<MakeRangeOp, SplatOp, arith::ConstantOp>(op)) return true;
    // A conversion inserted earlier in this pass: as cheap as what it converts.
    if (auto cvt = dyn_cast<ConvertLayoutOp>(op)) return isCheap(cvt.getSrc(), depth + 1);
    // Shape and pointer arithmetic over cheap values is cheap too (an address tensor
    // `base + rows[:, None] * stride + cols[None, :]`); an expand_dims needs a blocked
    // target, whose slice its operand is rebuilt in.
    bool shapeOrPointer = isa<AddPtrOp, BroadcastOp, ExpandDimsOp>(op);
    if (!shapeOrPointer && (!isa<arith::ArithDialect>(op->getDialect()) || op->getNumResults() != 1)) return false;
    return llvm::all_of(op->getOperands(), [&](Value o) {
      return !isa<RankedTensorType>(o.getType()) || isCheap(o, depth + 1);
    });
  }

  /// A copy of cheap `v`'s computation producing `type` (same shape, other layout).
  static Value rematerialize(OpBuilder &b, Value v, RankedTensorType type) {
    Operation *op = v.getDefiningOp();
    if (auto cvt = dyn_cast<ConvertLayoutOp>(op)) {
      Value src = cvt.getSrc();
      return layoutOf(src.getType()) == type.getEncoding() ? src : rematerialize(b, src, type);
    }
    IRMapping map;
    Attribute operandLayout = type.getEncoding();
    if (auto expand = dyn_cast<ExpandDimsOp>(op))
      operandLayout = SliceLayoutAttr::get(op->getContext(), expand.getAxis(), cast<BlockedLayoutAttr>(type.getEncoding()));
    for (Value o : op->getOperands())
      if (auto t = dyn_cast<RankedTensorType>(o.getType()))
        map.map(o, layoutOf(t) == operandLayout ? o
                                                : rematerialize(b, o, RankedTensorType::get(t.getShape(), t.getElementType(), operandLayout)));
    Operation *clone = b.clone(*op, map);
    clone->getResult(0).setType(type);
    if (auto c = dyn_cast<arith::ConstantOp>(clone))
      if (auto splat = dyn_cast<SplatElementsAttr>(c.getValue())) c.setValueAttr(splat.resizeSplat(type));
    return clone->getResult(0);
  }

  /// Whether `v`'s cheap computation can be rebuilt in `layout`: an expand_dims only
  /// into a blocked layout (its operand becomes that layout's slice).
  static bool canRematerializeAs(Value v, Attribute layout) {
    Operation *op = v.getDefiningOp();
    if (!op) return false;
    if (isa<MakeRangeOp, SplatOp, arith::ConstantOp>(op)) return true;
    if (auto cvt = dyn_cast<ConvertLayoutOp>(op))
      return layoutOf(cvt.getSrc().getType()) == layout || canRematerializeAs(cvt.getSrc(), layout);
    Attribute operandLayout = layout;
    if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
      auto blocked = dyn_cast<BlockedLayoutAttr>(layout);
      if (!blocked) return false;
      operandLayout = SliceLayoutAttr::get(op->getContext(), expand.getAxis(), blocked);
    }
    for (Value o : op->getOperands())
      if (isa<RankedTensorType>(o.getType()) && layoutOf(o.getType()) != operandLayout &&
          !canRematerializeAs(o, operandLayout))
        return false;
    return true;
  }

  /// Whether `v` can be recomputed in `layout` instead of converted: a cheap computation
  /// whose every step has a form in that layout.
  static bool rebuildableIn(Value v, Attribute layout) { return isCheap(v) && canRematerializeAs(v, layout); }

  /// convert_layout of a cheap producer → the producer recomputed in the target layout.
  void rematerializeCheapConversions(func::FuncOp func) {
    SmallVector<ConvertLayoutOp> converts;
    func.walk([&](ConvertLayoutOp c) { converts.push_back(c); });
    for (ConvertLayoutOp cvt : converts) {
      if (!rebuildableIn(cvt.getSrc(), cvt.getType().getEncoding())) continue;
      OpBuilder b(cvt);
      Value replacement = rematerialize(b, cvt.getSrc(), cvt.getType());
      Operation *src = cvt.getSrc().getDefiningOp();
      cvt.replaceAllUsesWith(replacement);
      cvt.erase();
      if (src->use_empty()) src->erase(); // the rest of a dead chain goes with canonicalisation
    }
  }
};

} // namespace
