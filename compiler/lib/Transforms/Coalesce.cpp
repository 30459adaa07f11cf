//===- Coalesce.cpp - order and vector width of each global memory access ===//
// Consecutive lanes own consecutive groups of elements along a blocked layout's fastest
// dimension, so a warp's accesses are coalesced when that dimension is the one the
// addresses run along. An access whose addresses run contiguously along another
// dimension (a transposed store: `out + cols[None, :] * m + rows[:, None]`) gets a
// layout of its own with that dimension fastest; its value moves through a layout
// conversion (a shared-memory transpose) and remove-layout-conversions recomputes the
// addresses and mask in the new layout. Then how many elements a thread moves per
// instruction is decided once, from the axis facts, and recorded as `tile.vec` for the
// lowering to obey.
#include "LayoutRewrite.h"
#include "tile/Transforms/Passes.h"
#include "tile/Transforms/Preconditions.h"
#include "llvm/Support/Debug.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECOALESCE
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

#define DEBUG_TYPE "tile-coalesce"

using namespace mlir;
using namespace mlir::tile;

namespace {
/// Consecutive addresses worth ordering lanes along when no vector width is gained: 4
/// elements (16 bytes of f32) or more per run.
constexpr int64_t kMinCoalescedRun = 4;

/// Gives a rank >= 2 global load or store the blocked layout whose fastest dimension is
/// the one its addresses allow the widest accesses along (on a tie, the longest runs of
/// consecutive addresses), when that is not its layout's fastest already.
void orderByContiguity(func::FuncOp func) {
  AxisInfoAnalysis axis(func);
  const unsigned warps = kernelWarps(func);
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
    // Runs of consecutive addresses along d: where no dimension allows vectors (addresses
    // not known to be aligned), lanes stepping along the longest runs still share sectors.
    const AxisInfo &info = axis.get(ptr);
    auto runs = [&](int d) { return std::min<int64_t>(info.contiguity[d], type.getDimSize(d)); };
    unsigned bestWidth = memoryVectorWidth(axis, ptr, mask, maxVec, fastest);
    int best = fastest;
    Operation *def = ptr.getDefiningOp();
    if (auto along = def ? def->getAttrOfType<IntegerAttr>(kLanesAlongAttr) : IntegerAttr()) {
      // The kernel's directive (DSL lanes_along): addresses run along it beyond what the
      // analysis proves.
      best = int(along.getInt());
      bestWidth = memoryVectorWidth(axis, ptr, mask, maxVec, best);
    } else {
      for (int d = 0; d < int(type.getRank()); ++d) {
        unsigned w = memoryVectorWidth(axis, ptr, mask, maxVec, d);
        if (w > bestWidth || (w == bestWidth && runs(d) >= kMinCoalescedRun && runs(d) > runs(best)))
          best = d, bestWidth = w;
      }
    }
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

struct Coalesce : mlir::tile::impl::TileCoalesceBase<Coalesce> {
  void runOnOperation() override {
    if (failed(requireLayouts(getOperation(), getArgument()))) return signalPassFailure();
    getOperation().walk([&](func::FuncOp func) {
      if (func->hasAttr(kKernelAttr)) orderByContiguity(func);
    });
    // Widths from the final layouts (the analysis sees through the conversions just made).
    AxisInfoAnalysis axis(getOperation());
    getOperation().walk([&](Operation *op) {
      if (!isa<LoadOp, StoreOp, AtomicRMWOp>(op)) return;
      const unsigned vec = accessVectorWidth(axis, op);
      LLVM_DEBUG(llvm::dbgs() << "vector width " << vec << (isa<AtomicRMWOp>(op) ? " (atomics stay scalar)" : "")
                              << ": " << op->getName() << " at " << op->getLoc() << "\n");
      setVectorWidth(op, vec);
    });
  }
};
} // namespace
