//===- SharedMemory.h - shared memory a value or an op occupies -----------===//
// The sizes tile-allocate-shared places, tile-insert-barriers fences and the lowering
// (convert-tile-to-llvm) fills: bytes per element of a buffer, and the scratch an op needs
// while it runs (layout conversions that need it and reshapes exchange the whole tensor
// through shared memory, reductions across warps one slot per warp). Passes at every floor
// ask here, so none has to include the lowering's headers.
#ifndef TILE_ANALYSIS_SHAREDMEMORY_H
#define TILE_ANALYSIS_SHAREDMEMORY_H

#include "tile/Dialect/Tile.h"
#include "tile/Layout/LinearLayout.h"

#include <string>

namespace mlir::tile {

/// Bytes one element occupies in shared memory (i1 as a byte; a pointer, lowered or not, 8).
unsigned sharedBytesOf(Type elemType);

/// How a reduction along `axis` runs on the source's linear layout. Each basis of the
/// layout must move along the axis only, or along other dimensions only (or be zero): then
/// a thread's registers group by their coordinates off the axis (one group per result
/// element it holds), and the lanes and warps whose bases move along the axis hold the
/// rest of each group's axis. Blocked, mma and dot-operand layouts and slices of them are
/// all of that form. Copies (registers, lanes or warps whose bits are free variables)
/// must be plain replicas (zero bases): they are skipped, not combined.
struct ReducePlan {
  std::string unsupported;             ///< why the layout cannot be reduced this way; empty when it can
  SmallVector<int> laneBits, warpBits; ///< bits whose bases move along the axis, increasing
  unsigned warpsAlongAxis() const { return 1u << warpBits.size(); }
};
/// `layout`: (register, lane, warp) -> the source tensor's dimensions.
ReducePlan planReduce(const ::tile::layout::LinearLayout &layout, unsigned axis);

/// The cross-warp scratch of a reduction: one slot per (result element, warp along the
/// axis) for the values, then, for argmax/argmin, the i32 indices from `indexOffset`, 4-byte
/// aligned (values may be 1 or 2 bytes). Empty (0 bytes) when one warp holds each result's
/// whole axis.
struct ReduceScratch {
  unsigned indexOffset = 0, bytes = 0;
};
ReduceScratch reduceScratch(ReduceOp op);

/// Scratch shared memory `op` needs while it runs (0: none): layout conversions that
/// planLayoutConversion (LayoutConversion.h) sends through shared memory and reshapes
/// exchange the whole tensor, reductions across warps one slot per warp.
/// tile-allocate-shared reserves it; the lowering reads the offset from the op.
unsigned scratchBytes(Operation *op);

} // namespace mlir::tile

#endif
