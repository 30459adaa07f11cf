//===- SharedAccess.h - where registers live in shared memory --------------===//
// Every shared-memory access of the lowering (buffers of tile.local_*, cp.async copies,
// the scratch of layout conversions) goes through one description: a linear layout
// (register, lane, warp) -> element offset. The lane's and warp's part is computed once
// per thread; each register adds (or XORs, under a swizzle) a constant.
#ifndef TILE_CONVERSION_SHAREDACCESS_H
#define TILE_CONVERSION_SHAREDACCESS_H

#include "TileToLLVM.h"

namespace mlir::tile {

/// The buffer's tile layout: "offset" -> (dim0, dim1) within one buffer of the ring.
::tile::layout::LinearLayout sharedTileLayout(MemDescType type);
/// (register, lane, warp) -> element offset of `regs`' registers stored in `type`.
::tile::layout::LinearLayout registerOffsets(const ThreadLayout &regs, MemDescType type);
/// The same for the row-major scratch of a layout conversion or reshape.
::tile::layout::LinearLayout rowMajorOffsets(const ThreadLayout &regs);

/// Element offsets of registers under a 1-D offset layout.
class OffsetIndexer {
public:
  OffsetIndexer(OpBuilder &b, Location loc, ::tile::layout::LinearLayout offsets, const ThreadPosition &pos);
  Value index(OpBuilder &b, Location loc, unsigned r) const;
  const ::tile::layout::LinearLayout &layout() const { return offsets; }

private:
  ::tile::layout::LinearLayout offsets;
  int32_t threadBits = 0;
  Value base;
};

/// Elements one access can move: the largest v (a power of two, at most 16 bytes) such
/// that registers r .. r+v-1 (r a multiple of v) sit at consecutive, v-aligned offsets.
unsigned offsetVectorWidth(const ::tile::layout::LinearLayout &offsets, Type elem);

/// Writes registers `regs` (of layout `layout`) to `base` at `offsets`; vectorised.
void storeRegisters(OpBuilder &b, Location loc, Value base, const ThreadLayout &layout,
                    const ::tile::layout::LinearLayout &offsets, ValueRange regs, Type elem);
/// Reads the registers of `layout` from `base` at `offsets`; vectorised.
SmallVector<Value> loadRegisters(OpBuilder &b, Location loc, Value base, const ThreadLayout &layout,
                                 const ::tile::layout::LinearLayout &offsets, Type elem);

/// Scratch shared memory `op` needs while it runs (0: none): layout conversions and
/// reshapes exchange the whole tensor, reductions across warps one slot per warp.
/// tile-allocate-shared reserves it; the lowering reads the offset from the op.
unsigned scratchBytes(Operation *op);

} // namespace mlir::tile

#endif
