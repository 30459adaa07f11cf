//===- Layouts.h - choosing blocked layouts and vector widths -------------===//
#ifndef TILE_ANALYSIS_LAYOUTS_H
#define TILE_ANALYSIS_LAYOUTS_H

#include "tile/Analysis/AxisInfo.h"
#include "tile/Dialect/Tile.h"

namespace mlir::tile {

/// The default blocked layout for tensors of `shape` on `numWarps` warps, with up to
/// `vec` consecutive elements per thread along the fastest dimension (`fastest`; -1: the
/// last), the others slowest-last. Threads fill the fastest dimension first, then warps;
/// smaller shapes replicate.
BlockedLayoutAttr defaultBlockedLayout(MLIRContext *ctx, ArrayRef<int64_t> shape, unsigned numWarps, unsigned vec,
                                       int fastest = -1);

/// How many consecutive elements one thread may access with one instruction at `ptr`
/// (a tensor of pointers) under `perThread` elements per thread along the fastest
/// dimension: limited by the addresses' contiguity and alignment, the mask's
/// constancy, 16 bytes, and the shape.
/// `dim`: the dimension the elements are consecutive along (-1: the last).
unsigned memoryVectorWidth(AxisInfoAnalysis &axis, Value ptr, Value mask, unsigned perThread, int dim = -1);

/// How many consecutive elements one thread moves with one instruction of `access` (a
/// global tile.load, tile.store or tile.atomic_rmw; 1 for atomics, which have no vector form
/// for most types): memoryVectorWidth along the run of consecutive elements each thread owns
/// in the pointers' layout (any distributed layout; a blocked one's fastest dimension).
unsigned accessVectorWidth(AxisInfoAnalysis &axis, Operation *access);

/// The layout attribute of a tensor type (null for scalars or unencoded tensors).
Attribute layoutOf(Type t);

} // namespace mlir::tile

#endif
