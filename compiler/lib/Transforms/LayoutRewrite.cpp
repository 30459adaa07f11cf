//===- LayoutRewrite.cpp - helpers of the layout passes -------------------===//
#include "LayoutRewrite.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tile;

RankedTensorType mlir::tile::withLayout(Type t, Attribute layout) {
  auto rt = cast<RankedTensorType>(t);
  return RankedTensorType::get(rt.getShape(), rt.getElementType(), layout);
}

bool mlir::tile::isUnlaidTensor(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt && !rt.getEncoding();
}

Value mlir::tile::convertTo(OpBuilder &b, Value v, Attribute layout) {
  if (layoutOf(v.getType()) == layout) return v;
  return ConvertLayoutOp::create(b, v.getLoc(), withLayout(v.getType(), layout), v);
}

unsigned mlir::tile::kernelWarps(func::FuncOp func) { return kernelNumWarps(func).value_or(4); }

DenseMap<unsigned, unsigned> mlir::tile::accessVectorWidths(func::FuncOp func) {
  AxisInfoAnalysis axis(func);
  DenseMap<unsigned, unsigned> widths;
  func.walk([&](Operation *op) {
    Value ptr;
    if (auto l = dyn_cast<LoadOp>(op)) ptr = l.getPtr();
    else if (auto s = dyn_cast<StoreOp>(op)) ptr = s.getPtr();
    else return;
    if (auto rt = dyn_cast<RankedTensorType>(ptr.getType())) {
      unsigned &w = widths[rt.getRank()];
      w = std::max(w, memoryVectorWidth(axis, ptr, Value(), 16));
    }
  });
  return widths;
}

namespace {

/// Steps of elementwise arithmetic a value may be from scalars and ranges and still count as
/// cheap: a convolution's padding mask (a pixel's row and column, shifted, compared with
/// the image's bounds, and'ed) is about 12.
constexpr int kMaxCheapDepth = 16;

/// Whether `load` reads fewer elements than its kernel has threads (each element is read by
/// several threads in any layout).
bool isReplicatedLoad(LoadOp load) {
  auto func = load->getParentOfType<func::FuncOp>();
  auto type = cast<RankedTensorType>(load.getType());
  return func && type.getNumElements() < int64_t(kernelWarps(func)) * 32;
}

/// Whether `v` is a short computation from scalars (see rebuildableIn). `known` remembers
/// the answers so far (shared subexpressions are visited once).
bool isCheap(Value v, Rebuild what, DenseMap<Value, bool> &known, int depth = 0) {
  Operation *op = v.getDefiningOp();
  if (!op || depth > kMaxCheapDepth) return false;
  if (auto it = known.find(v); it != known.end()) return it->second;
  auto operandsCheap = [&] {
    return llvm::all_of(op->getOperands(), [&](Value o) {
      return !isa<RankedTensorType>(o.getType()) || isCheap(o, what, known, depth + 1);
    });
  };
  bool cheap;
  if (isa<MakeRangeOp, SplatOp, arith::ConstantOp>(op)) cheap = true;
  // A conversion: as cheap as what it converts.
  else if (auto cvt = dyn_cast<ConvertLayoutOp>(op)) cheap = isCheap(cvt.getSrc(), what, known, depth + 1);
  else if (auto load = dyn_cast<LoadOp>(op))
    cheap = what == Rebuild::ReplicatedLoads && isa<RankedTensorType>(load.getType()) && isReplicatedLoad(load) &&
            operandsCheap();
  else if (!isa<AddPtrOp, BroadcastOp, ExpandDimsOp>(op) &&
           (!isa<arith::ArithDialect>(op->getDialect()) || op->getNumResults() != 1))
    cheap = false;
  else cheap = operandsCheap();
  known[v] = cheap;
  return cheap;
}

/// The layout `op`'s tensor operands need for its result to be in `layout`: the same,
/// except an expand_dims, whose operand is the result layout's slice (of a blocked, mma,
/// slice or linear layout: not of mma operand fragments, which no cheap value is built in).
Attribute operandLayoutFor(Operation *op, Attribute layout) {
  auto expand = dyn_cast<ExpandDimsOp>(op);
  if (!expand) return layout;
  auto parent = dyn_cast<DistributedLayoutInterface>(layout);
  if (!parent || isa<DotOperandLayoutAttr>(layout)) return {};
  return SliceLayoutAttr::get(op->getContext(), expand.getAxis(), parent);
}

/// Whether every step of cheap `v`'s computation has a form in `layout`.
bool canRematerializeAs(Value v, Attribute layout) {
  Operation *op = v.getDefiningOp();
  if (!op) return false;
  if (isa<MakeRangeOp, SplatOp, arith::ConstantOp>(op)) return true;
  if (auto cvt = dyn_cast<ConvertLayoutOp>(op))
    return layoutOf(cvt.getSrc().getType()) == layout || canRematerializeAs(cvt.getSrc(), layout);
  Attribute operandLayout = operandLayoutFor(op, layout);
  if (!operandLayout) return false;
  for (Value o : op->getOperands())
    if (isa<RankedTensorType>(o.getType()) && layoutOf(o.getType()) != operandLayout &&
        !canRematerializeAs(o, operandLayout))
      return false;
  return true;
}

} // namespace

bool mlir::tile::rebuildableIn(Value v, Attribute layout, Rebuild what) {
  DenseMap<Value, bool> known;
  return isCheap(v, what, known) && canRematerializeAs(v, layout);
}

Value mlir::tile::rematerialize(OpBuilder &b, Value v, RankedTensorType type) {
  Operation *op = v.getDefiningOp();
  if (auto cvt = dyn_cast<ConvertLayoutOp>(op)) {
    Value src = cvt.getSrc();
    return layoutOf(src.getType()) == type.getEncoding() ? src : rematerialize(b, src, type);
  }
  // A load reads where the original did, before any store between there and `b` (its
  // addresses are recomputed there too: what they are computed from is defined before it).
  OpBuilder::InsertionGuard guard(b);
  if (isa<LoadOp>(op)) b.setInsertionPointAfter(op);
  IRMapping map;
  Attribute operandLayout = operandLayoutFor(op, type.getEncoding());
  for (Value o : op->getOperands())
    if (auto t = dyn_cast<RankedTensorType>(o.getType()))
      map.map(o, layoutOf(t) == operandLayout ? o : rematerialize(b, o, withLayout(t, operandLayout)));
  Operation *clone = b.clone(*op, map);
  clone->getResult(0).setType(type);
  if (auto c = dyn_cast<arith::ConstantOp>(clone))
    if (auto splat = dyn_cast<SplatElementsAttr>(c.getValue())) c.setValueAttr(splat.resizeSplat(type));
  return clone->getResult(0);
}

void mlir::tile::eraseIfDead(ArrayRef<Operation *> ops) {
  // A worklist on which an op is put once, when it has no users left: an op feeding another
  // through two operands (x * x), or reached along two paths, or named twice, is erased once
  // (the recursive version erased such a feeder, then read it again: use-after-free found by
  // fuzz_dsl_tracer, test/fuzz/findings/).
  SmallVector<Operation *> dead;
  for (Operation *op : ops)
    if (op && op->use_empty() && !llvm::is_contained(dead, op)) dead.push_back(op);
  while (!dead.empty()) {
    Operation *op = dead.pop_back_val();
    if (!wouldOpBeTriviallyDead(op)) continue;
    SmallVector<Operation *> feeders;
    for (Value o : op->getOperands())
      if (Operation *d = o.getDefiningOp(); d && !llvm::is_contained(feeders, d)) feeders.push_back(d);
    op->erase();
    for (Operation *d : feeders)
      if (d->use_empty()) dead.push_back(d);
  }
}
