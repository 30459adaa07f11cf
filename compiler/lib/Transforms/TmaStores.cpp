//===- TmaStores.cpp - descriptor blocks stored by the tensor memory accelerator ===//
// On sm_90a a store of a 2-D descriptor block goes through shared memory and TMA: every
// thread writes its registers of the block into a #tile.nvmma_shared buffer, straight from
// the layout the value has (an mma accumulator's fragments too: the conversion to the
// store's coalesced layout, a round trip through shared memory of its own, is skipped), and
// thread 0 has the copy engine write the buffer to the block, clipped to the tensor. An
// epilogue between the accumulator and the store (bias, relu, the cast) runs in the
// accumulator's layout too, its bias row converted instead of the tile (computeIn). The
// lowering issues one copy per 128/64/32-byte column group and 256-row chunk, like the
// loads' (tmaBox). Only for descriptors whose extents are whole 16-byte multiples (TMA's
// clipping granularity) and, at run time, blocks that start inside the tensor; others keep
// the masked store. A descriptor atomic add whose old values are unused goes the same way to
// TMA's reduce-add (cp.reduce.async.bulk.tensor .add) wherever the block meets the tensor.
#include "LayoutRewrite.h"
#include "TmaRecord.h"
#include "tile/Layout/SharedLayouts.h"
#include "tile/Transforms/Passes.h"
#include "tile/Transforms/Preconditions.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/ControlFlowSinkUtils.h"
#include "llvm/Support/Debug.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILETMASTORES
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

#define DEBUG_TYPE "tile-tma-stores"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The buffer a rank-2 block of `t` is staged in: the widest swizzle its rows fill, or null
/// when none does, the rows are not whole 8-row atoms or the element type is not one the
/// copies move (f16, bf16, f32).
MemDescType stagingBuffer(RankedTensorType t) {
  Type elem = t.getElementType();
  if (t.getRank() != 2 || !isa<Float16Type, BFloat16Type, Float32Type>(elem) || t.getDimSize(0) % 8) return {};
  const int swizzle = ::tile::layout::nvmmaSwizzleFor(t.getDimSize(1), int(elem.getIntOrFloatBitWidth() / 8));
  if (!swizzle) return {};
  return MemDescType::get(t.getContext(), t.getShape(), elem,
                          NvmmaSharedLayoutAttr::get(t.getContext(), swizzle, /*transposed=*/false));
}

/// `v` computed in `layout` at `b`: through conversions to their source, elementwise ops,
/// broadcasts and expand_dims (of the slice of `layout`) rebuilt there, cheap values
/// rematerialised; any other value converted (a bias row: one conversion of its 1-D load
/// instead of one of the tile). An elementwise chain already in `layout` is rebuilt at `b`
/// too: each branch of the store computes its own (the epilogue's cast of a wgmma
/// accumulator read before the branch made ptxas serialise the wgmmas, C7514).
Value computeIn(OpBuilder &b, Value v, Attribute layout) {
  auto type = cast<RankedTensorType>(v.getType());
  // Unlaid IR (the pass run alone) or foreign encodings: as it is.
  if (!isa_and_nonnull<DistributedLayoutInterface>(layout)) return v;
  if (auto cvt = v.getDefiningOp<ConvertLayoutOp>()) return computeIn(b, cvt.getSrc(), layout);
  Operation *op = v.getDefiningOp();
  const bool chainStep = op && op->getNumRegions() == 0 && op->getNumResults() == 1 &&
                         (op->hasTrait<OpTrait::Elementwise>() || isa<arith::SelectOp>(op));
  if (type.getEncoding() == layout && !chainStep) return v;
  if (rebuildableIn(v, layout)) return rematerialize(b, v, withLayout(type, layout));
  RankedTensorType wanted = withLayout(type, layout);
  if (auto e = dyn_cast_or_null<ExpandDimsOp>(op); e && e.getAxis() < type.getRank()) {
    auto slice = SliceLayoutAttr::get(b.getContext(), e.getAxis(), cast<DistributedLayoutInterface>(layout));
    return ExpandDimsOp::create(b, e.getLoc(), wanted, computeIn(b, e.getSrc(), slice), e.getAxisAttr());
  }
  if (auto bc = dyn_cast_or_null<BroadcastOp>(op))
    return BroadcastOp::create(b, bc.getLoc(), wanted, computeIn(b, bc.getSrc(), layout));
  if (chainStep) {
    IRMapping map;
    for (Value o : op->getOperands())
      if (isa<RankedTensorType>(o.getType())) map.map(o, computeIn(b, o, layout));
    Operation *clone = b.clone(*op, map);
    clone->getResult(0).setType(wanted);
    return clone->getResult(0);
  }
  return ConvertLayoutOp::create(b, v.getLoc(), wanted, v);
}

/// The conversion that leads into `v`'s elementwise chain (followed through the operand of the
/// tile's own shape that is not a broadcast row or column nor a cheap value), else null.
ConvertLayoutOp chainRootConversion(Value v) {
  for (int depth = 0; depth < 16; ++depth) {
    Operation *op = v.getDefiningOp();
    if (auto cvt = dyn_cast_or_null<ConvertLayoutOp>(op)) return cvt;
    if (!op || op->getNumResults() != 1 || !(op->hasTrait<OpTrait::Elementwise>() || isa<arith::SelectOp>(op)))
      return {};
    Value next;
    for (Value o : op->getOperands())
      if (isa<RankedTensorType>(o.getType()) && !o.getDefiningOp<BroadcastOp>() &&
          !rebuildableIn(o, layoutOf(o.getType())))
        next = o;
    if (!next) return {};
    v = next;
  }
  return {};
}

/// The layout the store's value is best written to shared memory from: where its elementwise
/// chain starts, the source of the conversion leading into it (a matmul's accumulator layout),
/// else its own.
Attribute chainSourceLayout(Value v) {
  if (ConvertLayoutOp root = chainRootConversion(v)) return layoutOf(root.getSrc().getType());
  return layoutOf(v.getType());
}

struct TmaStores : mlir::tile::impl::TileTmaStoresBase<TmaStores> {
  void runOnOperation() override {
    if (failed(requireLayouts(getOperation(), getArgument()))) return signalPassFailure();
    ModuleOp module = getOperation();
    if (!targetHasWgmma(module)) { // TMA is sm_90's; its kernels here are sm_90a's
      LLVM_DEBUG(llvm::dbgs() << "target is not sm_90a: no TMA stores\n");
      return;
    }
    SmallVector<Operation *> writes;
    module.walk([&](Operation *op) {
      if (auto s = dyn_cast<StoreOp>(op); s && s.getDesc()) writes.push_back(op);
      // An add's old values would need the masked atomics: TMA returns none.
      if (auto a = dyn_cast<AtomicRMWOp>(op); a && a.getDesc() && a.use_empty()) writes.push_back(op);
    });
    for (Operation *op : writes) {
      if (auto s = dyn_cast<StoreOp>(op)) rewrite(module, s);
      else rewrite(module, cast<AtomicRMWOp>(op));
    }
  }

  /// Whether every extent of descriptor argument `arg` is a multiple of 16 bytes (its
  /// specialisation's divisibility). TMA clips a stored box to the tensor only at 16-byte
  /// granularity along the innermost dimension: on an H100 the 3 floats past a 517-float row
  /// were written. With whole 16-byte rows nothing outside is.
  static bool extentsOf16Bytes(BlockArgument arg, Type elem) {
    auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
    auto div = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), kDivisibilityAttr);
    return div && (div.getInt() * int64_t(elem.getIntOrFloatBitWidth() / 8)) % 16 == 0;
  }

  /// Whether the block at `offsets` starts inside the tensor (every offset in [0, extent)).
  template <class WriteOp> static Value startsInside(OpBuilder &b, Location loc, WriteOp store) {
    Value inside;
    for (auto [d, off] : llvm::enumerate(store.getDescOffsets())) {
      Value extent = DescriptorDimOp::create(b, loc, b.getI32Type(), store.getDesc(), b.getI32IntegerAttr(int32_t(d)),
                                             b.getBoolAttr(false));
      Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
      Value ok = arith::AndIOp::create(b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, off, zero),
                                       arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, off, extent));
      inside = inside ? Value(arith::AndIOp::create(b, loc, inside, ok)) : ok;
    }
    return inside;
  }

  /// Whether some element of the `add`'s block lies inside the tensor (every dimension's
  /// [offset, offset + extent of the block) meets [0, extent)).
  static Value overlapsTensor(OpBuilder &b, Location loc, AtomicRMWOp add) {
    auto block = cast<RankedTensorType>(add.getValue().getType()).getShape();
    Value overlaps;
    for (auto [d, off] : llvm::enumerate(add.getDescOffsets())) {
      Value extent = DescriptorDimOp::create(b, loc, b.getI32Type(), add.getDesc(), b.getI32IntegerAttr(int32_t(d)),
                                             b.getBoolAttr(false));
      Value end = arith::AddIOp::create(b, loc, off, arith::ConstantIntOp::create(b, loc, block[d], 32));
      Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
      Value ok = arith::AndIOp::create(b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, end, zero),
                                       arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, off, extent));
      overlaps = overlaps ? Value(arith::AndIOp::create(b, loc, overlaps, ok)) : ok;
    }
    return overlaps;
  }

  /// A masked store whose value is cast narrower after its conversion into the store's layout
  /// (an f32 accumulator stored as f16) converts the cast value instead: half the bytes through
  /// shared memory, and half the scratch.
  template <class WriteOp> static void convertLate(WriteOp store) {
    const Value original = store.getValue();
    ConvertLayoutOp root = chainRootConversion(original);
    if (!root || !isa_and_nonnull<DistributedLayoutInterface>(layoutOf(root.getSrc().getType())) ||
        !isa_and_nonnull<DistributedLayoutInterface>(layoutOf(original.getType())))
      return;
    Type from = getElementTypeOrSelf(root.getSrc().getType()), to = getElementTypeOrSelf(original.getType());
    if (!from.isIntOrFloat() || !to.isIntOrFloat() || from.getIntOrFloatBitWidth() <= to.getIntOrFloatBitWidth())
      return;
    OpBuilder b(store);
    convertAtChainEnd(b, store, layoutOf(root.getSrc().getType()));
  }

  /// A masked descriptor atomic add (no TMA) whose value's chain starts in another layout (an
  /// accumulator's) runs there: atomics gain nothing from the add's coalesced order, and the
  /// conversion into it would hold the tile in registers through a shared-memory round trip
  /// (the attention backward's dQ spilled). Its pointers and mask, index arithmetic, are
  /// recomputed there.
  static void addInSourceLayout(AtomicRMWOp add) {
    const Value original = add.getValue();
    const Attribute source = chainSourceLayout(original);
    if (!isa_and_nonnull<DistributedLayoutInterface>(source) || source == layoutOf(original.getType()) ||
        !rebuildableIn(add.getPtr(), source) || !rebuildableIn(add.getMask(), source))
      return;
    OpBuilder b(add);
    Value ptr = rematerialize(b, add.getPtr(), withLayout(add.getPtr().getType(), source));
    Value mask = rematerialize(b, add.getMask(), withLayout(add.getMask().getType(), source));
    Value value = computeIn(b, original, source);
    AtomicRMWOp::create(b, add.getLoc(), value.getType(), AtomicKind::Add, ptr, value, mask, add.getDesc(),
                        add.getDescOffsets(), add.getSem(), add.getScope());
    Operation *feeders[] = {add.getPtr().getDefiningOp(), add.getMask().getDefiningOp(), original.getDefiningOp()};
    add.erase(); // its old values are unused (runOnOperation)
    eraseIfDead(feeders);
  }

  /// The store's value computed in `source` (where its chain starts) and converted into the
  /// store's own layout at `b`, after the chain.
  template <class WriteOp> static void convertAtChainEnd(OpBuilder &b, WriteOp store, Attribute source) {
    const Value original = store.getValue();
    store.getValueMutable().assign(convertTo(b, computeIn(b, original, source), layoutOf(original.getType())));
    eraseIfDead(original.getDefiningOp());
  }

  /// The store becomes `if (the block starts inside the tensor) { stage; TMA store } else
  /// { the masked store }`: a box starting before or past the tensor (a DSL program may
  /// store one; no matmul tile does) keeps the masked store's exact semantics. What computes
  /// only the masked store's operands moves into its branch. A descriptor atomic add becomes
  /// `if (the block meets the tensor) { stage; TMA reduce-add }`.
  template <class WriteOp> static void rewrite(ModuleOp module, WriteOp store) {
    auto arg = dyn_cast<BlockArgument>(store.getDesc());
    if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp())) {
      LLVM_DEBUG(llvm::dbgs() << "store at " << store.getLoc() << ": its descriptor is not a kernel argument\n");
      return;
    }
    auto type = cast<RankedTensorType>(store.getValue().getType());
    MemDescType buffer = stagingBuffer(type);
    if (!buffer || !extentsOf16Bytes(arg, type.getElementType()) || !recordTma(module, arg, buffer, false)) {
      LLVM_DEBUG(llvm::dbgs() << "store at " << store.getLoc() << " stays masked: "
                              << (!buffer ? "no nvmma staging buffer fits the block"
                                  : !extentsOf16Bytes(arg, type.getElementType())
                                      ? "extents not known 16-byte multiples"
                                      : "the argument has another TMA map")
                              << "\n");
      if constexpr (std::is_same_v<WriteOp, AtomicRMWOp>) return addInSourceLayout(store);
      else return convertLate(store);
    }
    LLVM_DEBUG(llvm::dbgs() << "store at " << store.getLoc() << ": staged in " << buffer << ", TMA store\n");
    Location loc = store.getLoc();
    OpBuilder b(store);
    const Value original = store.getValue();
    const Attribute source = chainSourceLayout(original);
    if constexpr (std::is_same_v<WriteOp, AtomicRMWOp>) {
      // TMA's reduce adds the part of a box inside the tensor, wherever the box starts
      // (TmaDescriptorAdd.* on the GPU: boxes starting before, inside and past the tensor);
      // a box wholly outside adds nothing and issues no copy. No masked fallback: its
      // pointer tensor (two registers an element) would stay allocated beside the kernel's
      // accumulators even where the branch never runs (the attention backward's dQ spilled).
      // The block is staged before the branch, so that the barrier publishing it comes before
      // the branch too (tile-insert-barriers): every path passes it, and what the threads
      // read before it (attention's dSᵀ, read by dQᵀ's wgmmas) is free on every path after.
      Value meets = overlapsTensor(b, loc, store);
      Value staged = LocalAllocOp::create(b, loc, buffer, computeIn(b, original, source));
      auto branch = scf::IfOp::create(b, loc, meets, /*withElseRegion=*/false);
      b.setInsertionPointToStart(branch.thenBlock());
      AsyncTmaStoreOp::create(b, loc, staged, store.getDesc(), store.getDescOffsets(), /*add=*/true);
      store.erase();
      return;
    }
    auto branch = scf::IfOp::create(b, loc, startsInside(b, loc, store), /*withElseRegion=*/true);
    b.setInsertionPointToStart(branch.thenBlock());
    Value staged = LocalAllocOp::create(b, loc, buffer, computeIn(b, original, source));
    AsyncTmaStoreOp::create(b, loc, staged, store.getDesc(), store.getDescOffsets());
    // The masked store converts the final value (after the cast to C's type: fewer bytes)
    // into its own layout, in its branch: its scratch and the staging buffer never live at once.
    store->moveBefore(branch.elseBlock()->getTerminator());
    if (isa_and_nonnull<DistributedLayoutInterface>(layoutOf(original.getType()))) {
      b.setInsertionPoint(store);
      convertAtChainEnd(b, store, source);
    }
    DominanceInfo dominance;
    controlFlowSink(
        RegionRange{&branch.getElseRegion()}, dominance,
        [](Operation *op, Region *) { return isMemoryEffectFree(op) && op->getNumRegions() == 0; },
        [](Operation *op, Region *region) { op->moveBefore(&region->front().front()); });
  }
};

} // namespace
