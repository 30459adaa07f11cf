//===- Nchw.h - per-channel helpers of NCHW kernels (batchnorms, convolutions) ===//
// What the batchnorms and the convolutions share about an NCHW tensor's channels: the
// offsets of one channel's (N, H, W) elements, the shape checks of the per-channel kernels,
// and the layout of the per-tile partial statistics that a convolution writes for the
// batchnorm after it.
#pragma once

#include "tile/kernels/Declare.h"

namespace tile::kernels {

/// The per-channel kernels' block and warps (the batchnorms, ChannelSum): 4 elements per thread,
/// no spills (ptxas sm_90).
constexpr int kBatchNormBlock = 1024, kBatchNormWarps = 8;

/// Per-channel partial statistics of an NCHW tensor, written by its producer: a channel's
/// n·h·w elements, in image order, fall into ceil(n·h·w / rows) tiles of `rows` elements (the
/// last ragged; a tile may end one image and start the next), `tiles` in all; data holds
/// [tiles, c] sums, then [tiles, c] sums of squared deviations from each tile's own mean.
struct ChannelStats {
  Address data;
  int64_t tiles, rows;
};

namespace detail {
/// Elements in the first t tiles of ChannelStats over `count` (n·h·w) elements per channel (t a
/// scalar or a tensor).
inline Value statsRowsBefore(Value t, Value count, Value rows) { return minimum(t * rows, count); }
/// Elements in tile t of ChannelStats (at least 1: a weight for empty tiles, whose sums are 0).
inline Value statsRowsOf(Value t, Value count, Value rows) {
  return cast(maximum(statsRowsBefore(t + 1, count, rows) - statsRowsBefore(t, count, rows), 1), DType::f32);
}
/// Blocks of `rows` of a channel's count (n·h·w) elements, the last ragged: the tiles of
/// ChannelStats, and the pixel tiles of the convolutions (Conv.h).
inline int64_t pixelBlocks(int64_t count, int64_t rows) { return ceilDiv(count, rows); }

/// Element i of channel c's (N, H, W) elements, i = n * hw + p, in an NCHW tensor.
inline Value channelOffsets(Value i, Value c, Value channels, Value hw) {
  return (i / hw) * (channels * hw) + c * hw + i % hw;
}

inline void checkNchw(const char *kernel, int64_t n, int64_t c, int64_t hw) {
  checkRange(kernel, "n", n, 1, kMaxI32);
  checkRange(kernel, "c", c, 0, kMaxI32);
  checkRange(kernel, "h * w", hw, 1, kMaxI32);
  if (n * c > kMaxI32 || n * c * hw > kMaxI32 - kBatchNormBlock)
    fail(kernel,
         "n x c x (h * w) = " + num(n) + " x " + num(c) + " x " + num(hw) + " exceeds the kernel's int32 indexing");
}
} // namespace detail

} // namespace tile::kernels
