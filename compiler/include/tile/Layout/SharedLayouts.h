//===- SharedLayouts.h - shared-memory tiles as linear layouts -------------===//
// A shared layout maps a buffer's element offset to the tensor coordinate stored there
// (in dim "offset" -> out dims "dim0", "dim1"). Its inverse composed with a distributed
// layout gives (register, lane, warp) -> offset: where each thread's registers live in
// the buffer, as XORs of constants, which is what the lowering emits.
#ifndef TILE_LAYOUT_SHAREDLAYOUTS_H
#define TILE_LAYOUT_SHAREDLAYOUTS_H

#include "tile/Layout/LinearLayout.h"

namespace tile::layout {

/// Row-major rows x cols (dim1 contiguous) with vec-element chunks of row r XORed with
/// (r / perPhase) % maxPhase (Triton's swizzled_shared): element (r, c) sits at
/// r * cols + (((c / vec) ^ ((r / perPhase) % maxPhase)) * vec) + c % vec.
/// Needs vec * maxPhase <= cols (the XOR stays inside the row).
/// contiguousDim 0 is the column-major transpose: dim0 contiguous, "rows" of the swizzle
/// along dim1 (order = [0, 1]; needs vec * maxPhase <= rows).
LinearLayout swizzledShared(int64_t rows, int64_t cols, int vec, int perPhase, int maxPhase, int contiguousDim = 1);

/// Hopper's wgmma/TMA tile (#tile.nvmma_shared): row-major in column groups of
/// `swizzleBytes` (W = swizzleBytes / elemBytes columns), group after group, each group
/// rows x W with 16-byte chunks of row r XORed with (r / (128 / swizzleBytes)) %
/// (swizzleBytes / 16), which is what the hardware's address swizzle does to a buffer
/// starting at a 1024-byte boundary. Needs cols a multiple of W and rows of 8.
/// `transposed`: the [cols, rows] tile's layout with coordinates swapped (dim0 contiguous).
LinearLayout nvmmaShared(int64_t rows, int64_t cols, int elemBytes, int swizzleBytes, bool transposed = false);

/// TMA's largest box extent: a #tile.nvmma_shared buffer with more rows is copied in chunks.
inline constexpr int64_t kMaxTmaBoxRows = 256;

/// The widest swizzle (128, 64 or 32 bytes) whose rows a tile with `cols` elements of
/// `elemBytes` fills exactly; 0 when none does.
int nvmmaSwizzleFor(int64_t cols, int elemBytes);

/// The swizzle that keeps the eight 16-byte rows of an 8x8 ldmatrix block (and eight
/// threads storing 16 bytes each) in eight different bank groups, for a tile whose rows
/// are `rowBytes` long: vec = 16 bytes, perPhase rows share a phase so that a phase
/// spans 128 bytes, maxPhase phases cover eight 16-byte groups (at most the row's chunks).
struct Swizzle {
  int vec, perPhase, maxPhase;
};
Swizzle ldmatrixSwizzle(int64_t cols, int elemBytes);

/// (register, lane, warp) -> "offset" for a distributed layout `regs` (out dims dim0,
/// dim1) stored in `shared` (from swizzledShared of the same shape).
LinearLayout registersToOffsets(const LinearLayout &regs, const LinearLayout &shared);

} // namespace tile::layout

#endif
