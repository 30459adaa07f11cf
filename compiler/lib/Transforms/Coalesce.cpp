//===- Coalesce.cpp - vector width of each global memory access -----------===//
// Consecutive lanes own consecutive groups of elements in the layouts we assign, so a
// warp's accesses are coalesced by construction; what remains is how many elements a
// thread moves per instruction. That is decided here, once, from the axis facts, and
// recorded as `tile.vec` for the lowering to obey.
#include "tile/Analysis/Layouts.h"
#include "tile/Transforms/Passes.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECOALESCE
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
/// The dimension consecutive registers step along (the layout's fastest; -1: the last).
int fastestDim(Attribute layout) {
  if (auto b = dyn_cast_or_null<BlockedLayoutAttr>(layout)) return int(b.getOrder()[0]);
  return -1;
}

/// Elements a thread owns consecutively along the fastest dimension of `layout`.
unsigned contiguousPerThread(Attribute layout) {
  if (auto b = dyn_cast_or_null<BlockedLayoutAttr>(layout)) return b.getSizePerThread()[b.getOrder()[0]];
  return 1; // slices: conservatively scalar
}

struct Coalesce : mlir::tile::impl::TileCoalesceBase<Coalesce> {
  void runOnOperation() override {
    AxisInfoAnalysis axis(getOperation());
    auto i32 = IntegerType::get(&getContext(), 32);
    getOperation().walk([&](Operation *op) {
      Value ptr, mask;
      if (auto l = dyn_cast<LoadOp>(op)) ptr = l.getPtr(), mask = l.getMask();
      else if (auto s = dyn_cast<StoreOp>(op)) ptr = s.getPtr(), mask = s.getMask();
      else if (auto a = dyn_cast<AtomicAddOp>(op)) ptr = a.getPtr(), mask = a.getMask();
      else return;
      unsigned vec = 1;
      // Atomics stay scalar: there is no vector atomic add for most types.
      if (!isa<AtomicAddOp>(op))
        vec = memoryVectorWidth(axis, ptr, mask, contiguousPerThread(layoutOf(ptr.getType())),
                                fastestDim(layoutOf(ptr.getType())));
      op->setAttr("tile.vec", IntegerAttr::get(i32, vec));
    });
  }
};
} // namespace
