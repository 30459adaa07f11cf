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
/// (register, lane, warp) -> element offset of `regs`' registers stored in `type` (the
/// registers' tensor may be a window of the buffer's tile: see windowOffset).
::tile::layout::LinearLayout registerOffsets(const ThreadLayout &regs, MemDescType type);
/// `ll` (out dims dim0, dim1) with out-dimension sizes of the buffer's tile: the same map
/// from registers, lanes and warps, into the larger coordinate space of the buffer.
::tile::layout::LinearLayout widenToBuffer(const ::tile::layout::LinearLayout &ll, MemDescType type);
/// The element offset to XOR into every offset of a window starting at `offsets` (each a
/// multiple of the window's extent, so window coordinates and offsets share no bits and
/// the shared layout, being linear, maps their sum to the XOR of their offsets).
int32_t windowOffset(MemDescType type, ArrayRef<int64_t> offsets);
/// The same for the row-major scratch of a layout conversion or reshape.
::tile::layout::LinearLayout rowMajorOffsets(const ThreadLayout &regs);

/// Element offsets of registers under a 1-D offset layout.
class OffsetIndexer {
public:
  /// `xorConstant`: a window's offset (windowOffset), XORed into every register's.
  OffsetIndexer(OpBuilder &b, Location loc, ::tile::layout::LinearLayout offsets, const ThreadPosition &pos,
                int32_t xorConstant = 0);
  Value index(OpBuilder &b, Location loc, unsigned r) const;

private:
  ::tile::layout::LinearLayout offsets;
  int32_t threadBits = 0, xorConstant = 0;
  Value base;
};

/// Elements one access can move: the largest v (a power of two, at most 16 bytes) such
/// that registers r .. r+v-1 (r a multiple of v) sit at consecutive, v-aligned offsets.
unsigned offsetVectorWidth(const ::tile::layout::LinearLayout &offsets, Type elem);

/// Writes registers `regs` (of layout `layout`) to `base` at `offsets`; vectorised.
void storeRegisters(OpBuilder &b, Location loc, Value base, const ThreadLayout &layout,
                    const ::tile::layout::LinearLayout &offsets, ValueRange regs, Type elem);
/// Reads the registers of `layout` from `base` at `offsets` (XOR `xorConstant`); vectorised.
SmallVector<Value> loadRegisters(OpBuilder &b, Location loc, Value base, const ThreadLayout &layout,
                                 const ::tile::layout::LinearLayout &offsets, Type elem, int32_t xorConstant = 0);

} // namespace mlir::tile

#endif
