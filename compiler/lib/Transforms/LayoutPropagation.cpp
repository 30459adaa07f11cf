//===- LayoutPropagation.cpp - tensor-core results stay in their layout ---===//
// tile-accelerate-matmul leaves a dot's result in the #tile.mma accumulator layout and
// converts it back to the blocked layout its users were given, so everything computed from
// it (a softmax over attention scores, an epilogue, the next iteration's accumulator)
// pays a conversion through shared memory. Here the accumulator layout flows forward from
// every tensor-core result instead, as Triton's layout propagation does:
//   - through conversions (the one accelerate-matmul inserted is looked through),
//     elementwise ops, broadcasts, reductions (the result takes the #tile.slice of the
//     layout) and expand_dims of such a slice (back to the parent);
//   - through loops: a value yielded as a loop-carried value gives the carried value (the
//     iteration argument and the loop's result) its layout, and flows on from there, so an
//     accumulator rescaled each iteration (attention's acc · α) or a running row max stays
//     in registers across iterations.
// It stops at every other op (loads, stores, address arithmetic, dots' operands): those
// get one conversion from the propagated layout to the one they had. A value reached with
// two different layouts keeps its own. The cheap values the propagated ops now need in the
// new layout (masks from ranges, constants) are rebuilt there by the cleanup that runs next
// (tile-remove-layout-conversions), and the conversions this leaves behind fold there.
#include "LayoutPropagation.h"
#include "LayoutRewrite.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-remove-layout-conversions"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Ops that run in whatever layout their operands share, computing each element from the
/// same element of their operands (data, not addresses: pointer arithmetic keeps its
/// coalesced layout).
bool isElementwiseData(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumRegions() != 0 || isa<AddPtrOp>(op)) return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || isa<PtrType>(type.getElementType())) return false;
  if (!op->hasTrait<OpTrait::Elementwise>() && !isa<arith::SelectOp>(op)) return false;
  return llvm::all_of(op->getOperands(), [&](Value o) {
    auto t = dyn_cast<RankedTensorType>(o.getType());
    return !t || t.getShape() == type.getShape();
  });
}

/// The layout `op`'s result takes when an operand is in `layout`, or null
/// where propagation stops.
Attribute resultLayoutFor(Operation *op, Attribute layout) {
  if (isElementwiseData(op) || isa<BroadcastOp, ConvertLayoutOp>(op)) return layout;
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    if (!isa<RankedTensorType>(reduce.getType())) return {}; // a scalar
    return SliceLayoutAttr::get(op->getContext(), reduce.getAxis(), cast<DistributedLayoutInterface>(layout));
  }
  if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
    auto slice = dyn_cast<SliceLayoutAttr>(layout);
    if (slice && slice.getDim() == unsigned(expand.getAxis())) return slice.getParent();
  }
  return {};
}

/// The layout the tensor operands of `op` need for `op`'s result to be in `layout`.
Attribute operandLayoutFor(Operation *op, Attribute layout) {
  if (isa<ReduceOp>(op)) return cast<SliceLayoutAttr>(layout).getParent();
  if (auto expand = dyn_cast<ExpandDimsOp>(op))
    return SliceLayoutAttr::get(op->getContext(), expand.getAxis(), cast<DistributedLayoutInterface>(layout));
  return layout;
}

/// The plan: the layout each reached value takes. Loop-carried values are tied: the yielded
/// value's layout becomes the iteration argument's and the loop result's.
class Propagation {
public:
  void propagateFrom(Value anchor) {
    visit(anchor, layoutOf(anchor.getType()));
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      if (conflicted.contains(v)) continue;
      Attribute layout = plan.lookup(v);
      for (OpOperand &use : v.getUses()) follow(use, layout);
    }
  }

  /// The values whose layout changes, with their new layout (conflicts dropped).
  SmallVector<std::pair<Value, Attribute>> changes() const {
    // In the order reached (not the map's: the IR built from it must not depend on addresses).
    SmallVector<std::pair<Value, Attribute>> out;
    for (Value v : order)
      if (Attribute layout = plan.lookup(v); !conflicted.contains(v) && layoutOf(v.getType()) != layout)
        out.push_back({v, layout});
    return out;
  }

private:
  void visit(Value v, Attribute layout) {
    auto [it, inserted] = plan.try_emplace(v, layout);
    if (inserted) {
      order.push_back(v);
      worklist.push_back(v);
    } else if (it->second != layout && conflicted.insert(v).second) {
      LLVM_DEBUG(llvm::dbgs() << "[layout propagation] " << v.getLoc() << " reached in two layouts: keeps its own\n");
    }
  }

  void follow(OpOperand &use, Attribute layout) {
    Operation *user = use.getOwner();
    if (auto yield = dyn_cast<scf::YieldOp>(user)) {
      auto loop = dyn_cast<scf::ForOp>(yield->getParentOp());
      if (!loop) return;
      unsigned i = use.getOperandNumber();
      visit(loop.getRegionIterArgs()[i], layout);
      visit(loop.getResult(i), layout);
      return;
    }
    // An initial value: the carried value keeps the layout its body gives it.
    if (isa<scf::ForOp>(user)) return;
    if (Attribute result = resultLayoutFor(user, layout)) visit(user->getResult(0), result);
  }

  DenseMap<Value, Attribute> plan;
  SmallVector<Value> order, worklist;
  DenseSet<Value> conflicted;
};

/// `v` in `layout` at `b`: a broadcast or expand_dims is rebuilt on its converted operand
/// (converting the small tensor, not the broadcast one: a bias row, a running max).
Value convertThroughShape(OpBuilder &b, Value v, Attribute layout) {
  if (layoutOf(v.getType()) == layout) return v;
  Operation *def = v.getDefiningOp();
  if (auto bcast = dyn_cast_or_null<BroadcastOp>(def)) {
    Value src = convertThroughShape(b, bcast.getSrc(), layout);
    return BroadcastOp::create(b, bcast.getLoc(), withLayout(v.getType(), layout), src);
  }
  if (auto expand = dyn_cast_or_null<ExpandDimsOp>(def)) {
    Attribute slice = SliceLayoutAttr::get(b.getContext(), expand.getAxis(), cast<DistributedLayoutInterface>(layout));
    Value src = convertThroughShape(b, expand.getSrc(), slice);
    return ExpandDimsOp::create(b, expand.getLoc(), withLayout(v.getType(), layout), src, expand.getAxis());
  }
  return convertTo(b, v, layout);
}

} // namespace

bool mlir::tile::propagateAccumulatorLayouts(func::FuncOp func) {
  Propagation propagation;
  func.walk([&](Operation *op) {
    if (isa<DotOp, WarpGroupDotOp>(op) && isa<MmaLayoutAttr>(layoutOf(op->getResult(0).getType())))
      propagation.propagateFrom(op->getResult(0));
  });
  SmallVector<std::pair<Value, Attribute>> changes = propagation.changes();
  if (changes.empty()) return false;

  // Retype, remembering the old layouts and which ops now compute in a new one.
  DenseMap<Value, Type> oldType;
  llvm::SetVector<Operation *> retypedOps;
  DenseSet<Value> retyped;
  for (auto &[v, layout] : changes) {
    oldType[v] = v.getType();
    v.setType(withLayout(v.getType(), layout));
    retyped.insert(v);
    if (Operation *def = v.getDefiningOp(); def && !isa<scf::ForOp>(def)) retypedOps.insert(def);
  }
  LLVM_DEBUG(llvm::dbgs() << "[layout propagation] @" << func.getSymName() << ": " << changes.size()
                          << " value(s) take a tensor-core layout\n");

  // Users that did not move get the value back in the layout they had.
  for (auto &[v, layout] : changes) {
    Type before = oldType[v];
    for (OpOperand &use : llvm::make_early_inc_range(v.getUses())) {
      Operation *user = use.getOwner();
      if (retypedOps.contains(user)) continue;
      if (auto yield = dyn_cast<scf::YieldOp>(user)) {
        auto loop = dyn_cast<scf::ForOp>(yield->getParentOp());
        if (loop && retyped.contains(loop.getRegionIterArgs()[use.getOperandNumber()])) continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(user);
          loop && use.getOperandNumber() >= loop.getNumControlOperands() &&
          retyped.contains(loop.getRegionIterArgs()[use.getOperandNumber() - loop.getNumControlOperands()]))
        continue;
      OpBuilder b(user);
      use.set(convertTo(b, v, layoutOf(before)));
    }
  }

  // Ops that compute in a new layout take their operands in it.
  for (Operation *op : retypedOps) {
    OpBuilder b(op);
    Attribute layout = layoutOf(op->getResult(0).getType());
    // A conversion looked through now converts to the propagated layout: the cleanup folds it.
    if (isa<ConvertLayoutOp>(op)) continue;
    for (OpOperand &o : op->getOpOperands())
      if (isa<RankedTensorType>(o.get().getType()))
        o.set(convertThroughShape(b, o.get(), operandLayoutFor(op, layout)));
  }
  // Carried values: initial values converted before the loop, yielded ones before the yield.
  func.walk([&](scf::ForOp loop) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
      if (!retyped.contains(arg)) continue;
      Attribute layout = layoutOf(arg.getType());
      OpBuilder before(loop);
      OpOperand &init = loop.getInitArgsMutable()[i];
      init.set(convertThroughShape(before, init.get(), layout));
      OpBuilder atYield(yield);
      OpOperand &next = yield->getOpOperand(i);
      next.set(convertThroughShape(atYield, next.get(), layout));
    }
  });
  return true;
}
