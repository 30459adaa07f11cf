//===- BatchNormSplit.h - batchnorm2d with each channel split over programs ===//
// BatchNorm.h runs one program per channel: 32 or 64 programs of 8 warps leave most of
// an H100/H200's 132 SMs idle (batch 1024: 2.3 ms for the first layer's backward alone).
// Here each channel's N x H x W elements are split into `splits` chunks, one program per
// (channel, chunk), grid (c, splits), and every per-channel reduction becomes per-chunk
// partial sums in a workspace that the next kernel combines in a fixed order (no
// atomics: results do not depend on scheduling, as SumPartials):
//   forward   BatchNorm2dStatsPartial   the producer's per-tile statistics (ChannelStats)
//                                       -> per-chunk (sum, centred sum of squares)
//             BatchNorm2dForwardSplit   combines them (Chan et al.), writes mean/rstd (chunk
//                                       0) and normalises (+relu) (+2x2 pool) its chunk
//   backward  BatchNorm2dBackwardReduce per-chunk Σ g and Σ g·x̂
//             BatchNorm2dBackwardSplit  combines them, writes dgamma/dbeta (chunk 0) and
//                                       dx of its chunk (+ per-chunk Σ dx, which
//                                       SumPartials reduces into dxSum)
// The arithmetic per element is BatchNorm.h's; only the order of the sums differs.
#pragma once

#include "tile/kernels/BatchNorm.h" // detail::bnGradients, ChannelStats (Nchw.h)
#include "tile/kernels/Partials.h"  // SumPartials

#include <algorithm>

namespace tile::kernels {

/// POOL = 2: 2x2 pooling walked window by window, each window's rows as pairs of adjacent
/// floats (w even; in the backward kernels h too, so every input is in one window).
constexpr int kBnPoolWindows = 2;

/// How a channel's `items` elements are split over programs, and the workspace needed.
struct BatchNormSplit {
  static constexpr int kBlock = kBatchNormBlock, kWarps = kBatchNormWarps;
  /// Programs wanted in all: 132 SMs x 8 resident programs of 8 warps (H100/H200).
  static constexpr int64_t kTargetPrograms = 1056;
  /// Fewer elements per chunk than this cost more in launch and combine than they gain.
  static constexpr int64_t kMinPerSplit = 4 * kBlock;
  /// The combining kernels read every chunk's partial in one SPLITS-wide tile.
  static constexpr int kMaxSplits = 256;

  /// (elements per chunk, a multiple of kBlock; chunks) for `items` elements per channel.
  static std::pair<int64_t, int64_t> splitting(int64_t items, int64_t channels) {
    int64_t per = ceilDiv(ceilDiv(items, splitsBound(items, channels)), kBlock) * kBlock;
    return {per, ceilDiv(items, per)};
  }
  /// At least splitting()'s chunks, and never fewer for more items: workspaces sized for
  /// the largest batch hold every smaller one's partials.
  static int64_t splitsBound(int64_t items, int64_t channels) {
    int64_t want = std::max<int64_t>(1, ceilDiv(kTargetPrograms, std::max<int64_t>(channels, 1)));
    return std::clamp<int64_t>(ceilDiv(items, kMinPerSplit), 1, std::min<int64_t>(want, kMaxSplits));
  }
  /// Stats tiles per chunk and chunks of BatchNorm2dStatsPartial.
  static std::pair<int64_t, int64_t> statsSplitting(int64_t tiles, int64_t channels) {
    return splitting(tiles, channels);
  }
  /// Floats of the workspace the forward and backward of an [n, c, h, w] batchnorm need
  /// (statsRows: ChannelStats::rows of the forward's statistics), and of any smaller n.
  static int64_t workspaceElements(int64_t n, int64_t c, int64_t h, int64_t w, int64_t statsRows) {
    int64_t fwd = 2 * splitsBound(detail::pixelBlocks(n * h * w, statsRows), c) * c;
    int64_t bwd = 3 * splitsBound(n * h * w, c) * c;
    return std::max(fwd, bwd);
  }
};

namespace detail {
/// Chunk `s` of `per` elements out of `items`: [lo, hi).
inline std::pair<Value, Value> chunkRange(Value s, Value per, Value items) {
  Value lo = s * per;
  return {lo, minimum(lo + per, items)};
}

/// The offset of the top-left input of 2x2 pooling windows j (any shape) of channel c in an
/// NCHW tensor of h rows of `rowStride` elements (w, or 2·(w / 2) where w is even: then every
/// term is provably a multiple of 2), ow windows per row, ohw per image.
inline Value windowCorner(Value j, Value c, Value channels, Value h, Value rowStride, Value ow, Value ohw) {
  Value q = j % ohw;
  return ((j / ohw) * channels + c) * (h * rowStride) + (q / ow) * (2 * rowStride) + (q % ow) * 2;
}
/// Σ over chunks of one channel's partials part[s * channels + c], s < splits, read as one
/// SPLITS-wide tile (a fixed order: the same on every program and run).
inline Value sumChunks(Value part, Value c, Value channels, Value splits, int SPLITS) {
  Value s = arange(0, SPLITS);
  return sum(load(part + s * channels + c, s < splits, 0.0f));
}
} // namespace detail

/// Per chunk of stats tiles [s·tilesPer, ...) of channel c: the sum of the channel's
/// elements in those tiles, and their squared deviations from the chunk's own mean.
/// part: [splits, c] sums, then [splits, c] centred sums of squares.
struct BatchNorm2dStatsPartial {
  static constexpr const char *name = "batchnorm2d_stats_partial";
  static constexpr auto body = [](Ptr<float> stats, Ptr<float> part, I32 count, I32 channels, I32 statTiles,
                                  I32 statRows, I32 tilesPer, Const<int> BLOCK) {
    Value c = program_id(0), s = program_id(1), splits = (statTiles + tilesPer - 1) / tilesPer;
    auto [lo, hi] = detail::chunkRange(s, tilesPer, statTiles);
    auto tiles = [&](Value t0) {
      Value t = t0 + arange(0, BLOCK);
      return std::pair{t, t < hi};
    };
    Value total = for_range(lo, hi, BLOCK, zeros({BLOCK}, DType::f32), [&](Value t0, Value acc) {
      auto [t, mask] = tiles(t0);
      return acc + load(stats + t * channels + c, mask, 0.0f);
    });
    Value chunkSum = sum(total);
    Value chunkRows = detail::statsRowsBefore(hi, count, statRows) - detail::statsRowsBefore(lo, count, statRows);
    Value mu = chunkSum / cast(maximum(chunkRows, 1), DType::f32);
    Value squares = for_range(lo, hi, BLOCK, zeros({BLOCK}, DType::f32), [&](Value t0, Value acc) {
      auto [t, mask] = tiles(t0);
      Value rows = detail::statsRowsOf(t, count, statRows);
      Value d = load(stats + t * channels + c, mask, 0.0f) / rows - mu;
      return acc + where(mask, load(stats + (statTiles + t) * channels + c, mask, 0.0f) + rows * d * d, 0.0f);
    });
    store(part + s * channels + c, chunkSum);
    store(part + (splits + s) * channels + c, sum(squares));
  };
  static constexpr std::array params{"stats",      "part",      "count",     "channels",
                                     "stat_tiles", "stat_rows", "tiles_per", "BLOCK"};
  static std::vector<Variant> variants() { return {{{BatchNormSplit::kBlock}, BatchNormSplit::kWarps}}; }
};
TILE_LIBRARY_KERNEL(BatchNorm2dStatsPartial);

/// y = relu?(bn(x)) (then 2x2 max pooling + int8 argmax, as BatchNorm2dForward's POOL)
/// over chunk s of `per` outputs of channel c; mean and rstd from BatchNorm2dStatsPartial's
/// chunks (statSplits of them, each of tilesPer ChannelStats tiles but the last).
struct BatchNorm2dForwardSplit {
  static constexpr const char *name = "batchnorm2d_fwd_split";
  static constexpr auto body = [](Ptr<float> x, Ptr<float> y, Ptr<int8_t> argmax, Ptr<float> gamma, Ptr<float> beta,
                                  Ptr<float> mean, Ptr<float> rstd, Ptr<float> part, I32 n, I32 channels, I32 h, I32 w,
                                  I32 statSplits, I32 statTiles, I32 statRows, I32 tilesPer, I32 per, F32 eps,
                                  Const<int> BLOCK, Const<int> SPLITS, Const<int> RELU, Const<int> POOL) {
    Value c = program_id(0), s = program_id(1);
    Value hw = h * w, count = n * hw;
    Value countF = cast(count, DType::f32);
    // Chan et al.: M2 = Σ_chunks M2_k + rows_k · (mean_k - mean)².
    Value k = arange(0, SPLITS), kMask = k < statSplits;
    Value sums = load(part + k * channels + c, kMask, 0.0f);
    Value mu = sum(sums) / countF;
    Value rows = cast(maximum(detail::statsRowsBefore(minimum((k + 1) * tilesPer, statTiles), count, statRows) -
                                  detail::statsRowsBefore(k * tilesPer, count, statRows),
                              1),
                      DType::f32);
    Value d = sums / rows - mu;
    Value m2 = load(part + (statSplits + k) * channels + c, kMask, 0.0f) + rows * d * d;
    Value r = rsqrt(sum(where(kMask, m2, 0.0f)) / countF + eps);
    if_then(s == 0, [&] {
      store(mean + c, mu);
      store(rstd + c, r);
    });
    Value scale = r * load(gamma + c), shift = load(beta + c);
    auto normalise = [&](Value v) {
      v = (v - mu) * scale + shift;
      return RELU ? maximum(v, 0.0f) : v;
    };
    if (POOL == 0) {
      auto [lo, hi] = detail::chunkRange(s, per, count);
      for_range(lo, hi, BLOCK, [&](Value i0) {
        Value i = i0 + arange(0, BLOCK);
        Value offs = detail::channelOffsets(i, c, channels, hw), mask = i < hi;
        store(y + offs, normalise(load(x + offs, mask, 0.0f)), mask);
      });
    } else {
      // Each window's rows as [BLOCK, 2] pairs, a thread's two horizontal neighbours adjacent in
      // memory. POOL = kBnPoolWindows (w even): w rebuilt as 2·(w / 2) makes every offset provably
      // even, and the pairs load 8 bytes at a time.
      Value oh = h / 2, ow = w / 2, rowStride = POOL == kBnPoolWindows ? ow * 2 : w;
      Value ohw = oh * ow;
      Value column = row(arange(0, 2));
      auto [lo, hi] = detail::chunkRange(s, per, n * ohw);
      for_range(lo, hi, BLOCK, [&](Value j0) {
        Value j = j0 + arange(0, BLOCK);
        Value mask = j < hi, pairMask = broadcast_to(col(mask), {BLOCK, 2});
        Value base = detail::windowCorner(j, c, channels, h, rowStride, ow, ohw);
        Value rows[2] = {normalise(load(x + (col(base) + column), pairMask, 0.0f)),
                         normalise(load(x + (col(base + rowStride) + column), pairMask, 0.0f))};
        // Window position p = (row, column) = (p / 2, p % 2), taken out of its pair exactly
        // (x + -0.0 is x for every x, NaN and ±0 included).
        auto position = [&](int p) { return sum(where(column == p % 2, rows[p / 2], -0.0f), 1); };
        Value best = position(0);
        Value idx = zeros({BLOCK}, DType::i32);
        for (int p = 1; p < 4; ++p) {
          Value v = position(p);
          Value better = v > best;
          best = where(better, v, best);
          idx = where(better, p, idx);
        }
        Value out = detail::channelOffsets(j, c, channels, ohw);
        store(y + out, best, mask);
        store(argmax + out, cast(idx, DType::i8), mask);
      });
    }
  };
  static constexpr std::array params{"x",           "y",          "argmax",    "gamma",     "beta", "mean",
                                     "rstd",        "part",       "n",         "channels",  "h",    "w",
                                     "stat_splits", "stat_tiles", "stat_rows", "tiles_per", "per",  "eps",
                                     "BLOCK",       "SPLITS",     "RELU",      "POOL"};
  static std::vector<Variant> variants() {
    std::vector<Variant> v;
    for (int pool = 0; pool <= kBnPoolWindows; ++pool)
      for (int relu = 0; relu < 2; ++relu)
        v.push_back({{BatchNormSplit::kBlock, BatchNormSplit::kMaxSplits, relu, pool}, BatchNormSplit::kWarps});
    return v;
  }

  /// BatchNorm2dForward::launch / launchPooled with stats (required) and each channel
  /// split over programs; workspace: BatchNormSplit::workspaceElements() floats.
  static void launch(Launcher &l, Address x, Address y, Address argmax, Address gamma, Address beta, Address mean,
                     Address rstd, const ChannelStats &stats, Address workspace, int64_t workspaceFloats, int64_t n,
                     int64_t c, int64_t h, int64_t w, float eps, bool relu, bool pool, CUstream stream = nullptr);
};
TILE_LIBRARY_KERNEL(BatchNorm2dForwardSplit);

namespace detail {
/// The same for the four inputs of pooling windows j ([W, 1]) of channel c (h and w even: every
/// input in exactly one window), as two [W, 2] pairs: the window's top row, then its bottom
/// row. Index arithmetic once per window instead of per element, the argmax and pooled
/// gradient read once for four inputs, and each thread's two horizontal neighbours adjacent
/// in memory: x is read and dx written 8 bytes at a time. (The offsets are provably even:
/// w is rebuilt as 2·(w / 2), so every term is a multiple of 2.)
inline std::array<BnGradients, 2> bnWindowGradients(Value j, Value mask, Value c, Value channels, Value h, Value w,
                                                    Value x, Value dy, Value argmax, Value mu, Value r, Value scale,
                                                    Value shift, int RELU) {
  Value ow = w / 2, ohw = (h / 2) * ow, wEven = ow * 2;
  Value base = windowCorner(j, c, channels, h, wEven, ow, ohw), o = channelOffsets(j, c, channels, ohw);
  // Every index and the per-window loads stay [W, 1], in the pairs' layout (no conversion).
  Value at = cast(load(argmax + o, mask, 0), DType::i32);
  Value pooled = load(dy + o, mask, 0.0f);
  const int64_t windows = j.shape()[0];
  Value pairMask = broadcast_to(mask, {windows, 2}), column = row(arange(0, 2));
  std::array<BnGradients, 2> out;
  for (int top = 0; top < 2; ++top) {
    Value offs = (base + top * wEven) + column; // [W, 2]
    Value xc = load(x + offs, pairMask, 0.0f) - mu;
    Value gy = where(pairMask & (at == column + 2 * top), pooled, 0.0f);
    if (RELU) gy = where(xc * scale + shift > 0.0f, gy, 0.0f);
    out[size_t(top)] = {offs, xc * r, gy, pairMask};
  }
  return out;
}
} // namespace detail

/// Per chunk s of `per` elements of channel c (POOL = 2: of `per` pooling windows): Σ g and
/// Σ g·x̂ into part[s, c] and part[splits + s, c].
struct BatchNorm2dBackwardReduce {
  static constexpr const char *name = "batchnorm2d_bwd_reduce";
  static constexpr auto body = [](Ptr<float> x, Ptr<float> dy, Ptr<int8_t> argmax, Ptr<float> gamma, Ptr<float> beta,
                                  Ptr<float> mean, Ptr<float> rstd, Ptr<float> part, I32 n, I32 channels, I32 h, I32 w,
                                  I32 per, Const<int> BLOCK, Const<int> RELU, Const<int> POOL) {
    Value c = program_id(0), s = program_id(1);
    Value count = n * h * w, items = POOL == kBnPoolWindows ? n * (h / 2) * (w / 2) : count;
    Value splits = (items + per - 1) / per;
    Value mu = load(mean + c), r = load(rstd + c);
    Value scale = r * load(gamma + c), shift = load(beta + c);
    std::vector<Value> sums;
    if (POOL == kBnPoolWindows) {
      const int windows = BLOCK / 4;
      auto [lo, hi] = detail::chunkRange(s, per, items);
      sums = for_range(lo, hi, windows, {zeros({windows, 2}, DType::f32), zeros({windows, 2}, DType::f32)},
                       [&](Value j0, std::vector<Value> acc) {
                         Value j = col(j0 + arange(0, windows)), mask = j < hi;
                         for (const auto &g : detail::bnWindowGradients(j, mask, c, channels, h, w, x, dy, argmax, mu,
                                                                        r, scale, shift, RELU))
                           acc = {acc[0] + g.gy, acc[1] + g.gy * g.xhat};
                         return acc;
                       });
      sums = {sum(sums[0], 1), sum(sums[1], 1)};
    } else {
      auto [lo, hi] = detail::chunkRange(s, per, count);
      sums = for_range(lo, hi, BLOCK, {zeros({BLOCK}, DType::f32), zeros({BLOCK}, DType::f32)},
                       [&](Value i0, std::vector<Value> acc) {
                         Value i = i0 + arange(0, BLOCK), mask = i < hi, hw = h * w;
                         auto g = detail::bnGradients(i, detail::channelOffsets(i, c, channels, hw), mask, c, channels,
                                                      h, w, hw, x, dy, argmax, mu, r, scale, shift, RELU, POOL);
                         return std::vector<Value>{acc[0] + g.gy, acc[1] + where(mask, g.gy * g.xhat, 0.0f)};
                       });
    }
    store(part + s * channels + c, sum(sums[0]));
    store(part + (splits + s) * channels + c, sum(sums[1]));
  };
  static constexpr std::array params{"x", "dy",       "argmax", "gamma", "beta", "mean",  "rstd", "part",
                                     "n", "channels", "h",      "w",     "per",  "BLOCK", "RELU", "POOL"};
  static std::vector<Variant> variants() {
    std::vector<Variant> v;
    for (int pool = 0; pool <= kBnPoolWindows; ++pool)
      for (int relu = 0; relu < 2; ++relu) v.push_back({{BatchNormSplit::kBlock, relu, pool}, BatchNormSplit::kWarps});
    return v;
  }
};
TILE_LIBRARY_KERNEL(BatchNorm2dBackwardReduce);

/// dx over chunk s of channel c from BatchNorm2dBackwardReduce's partials; chunk 0 writes
/// dbeta[c] = Σ g and dgamma[c] = Σ g·x̂; DXSUM = 1: Σ dx of the chunk into
/// part[2·splits + s, c].
struct BatchNorm2dBackwardSplit {
  static constexpr const char *name = "batchnorm2d_bwd_split";
  static constexpr auto body = [](Ptr<float> x, Ptr<float> dy, Ptr<int8_t> argmax, Ptr<float> gamma, Ptr<float> beta,
                                  Ptr<float> mean, Ptr<float> rstd, Ptr<float> dx, Ptr<float> dgamma, Ptr<float> dbeta,
                                  Ptr<float> part, I32 n, I32 channels, I32 h, I32 w, I32 per, Const<int> BLOCK,
                                  Const<int> SPLITS, Const<int> RELU, Const<int> POOL, Const<int> DXSUM) {
    Value c = program_id(0), s = program_id(1);
    Value count = n * h * w, items = POOL == kBnPoolWindows ? n * (h / 2) * (w / 2) : count;
    Value splits = (items + per - 1) / per;
    Value countF = cast(count, DType::f32);
    Value mu = load(mean + c), r = load(rstd + c);
    Value scale = r * load(gamma + c), shift = load(beta + c);
    Value sumG = detail::sumChunks(part, c, channels, splits, SPLITS);
    Value sumGX = detail::sumChunks(part + splits * channels, c, channels, splits, SPLITS);
    if_then(s == 0, [&] {
      store(dbeta + c, sumG);
      store(dgamma + c, sumGX);
    });
    Value meanG = sumG / countF, meanGX = sumGX / countF;
    auto dxOf = [&](const detail::BnGradients &g, Value acc) {
      Value d = scale * (g.gy - meanG - g.xhat * meanGX);
      store(dx + g.offs, d, g.mask);
      return DXSUM ? acc + where(g.mask, d, 0.0f) : acc;
    };
    Value dxTotal;
    if (POOL == kBnPoolWindows) {
      const int windows = BLOCK / 4;
      auto [lo, hi] = detail::chunkRange(s, per, items);
      dxTotal = for_range(lo, hi, windows, zeros({windows, 2}, DType::f32), [&](Value j0, Value acc) {
        Value j = col(j0 + arange(0, windows)), mask = j < hi;
        for (const auto &g :
             detail::bnWindowGradients(j, mask, c, channels, h, w, x, dy, argmax, mu, r, scale, shift, RELU))
          acc = dxOf(g, acc);
        return acc;
      });
      dxTotal = sum(dxTotal, 1);
    } else {
      auto [lo, hi] = detail::chunkRange(s, per, count);
      dxTotal = for_range(lo, hi, BLOCK, zeros({BLOCK}, DType::f32), [&](Value i0, Value acc) {
        Value i = i0 + arange(0, BLOCK), mask = i < hi, hw = h * w;
        return dxOf(detail::bnGradients(i, detail::channelOffsets(i, c, channels, hw), mask, c, channels, h, w, hw, x,
                                        dy, argmax, mu, r, scale, shift, RELU, POOL),
                    acc);
      });
    }
    if (DXSUM) store(part + (2 * splits + s) * channels + c, sum(dxTotal));
  };
  static constexpr std::array params{"x",  "dy",     "argmax", "gamma",  "beta", "mean",     "rstd",
                                     "dx", "dgamma", "dbeta",  "part",   "n",    "channels", "h",
                                     "w",  "per",    "BLOCK",  "SPLITS", "RELU", "POOL",     "DXSUM"};
  static std::vector<Variant> variants() {
    std::vector<Variant> v;
    for (int dxSum = 0; dxSum < 2; ++dxSum)
      for (int pool = 0; pool <= kBnPoolWindows; ++pool)
        for (int relu = 0; relu < 2; ++relu)
          v.push_back(
              {{BatchNormSplit::kBlock, BatchNormSplit::kMaxSplits, relu, pool, dxSum}, BatchNormSplit::kWarps});
    return v;
  }

  /// BatchNorm2dBackward::launch / launchPooled (same arguments, pool picks which) with
  /// each channel split over programs; workspace: BatchNormSplit::workspaceElements()
  /// floats; dxSum (null: not wanted) [c].
  /// dxSumBranch (only with stream == nullptr, the launcher's own line): the sum of dx, a last
  /// reduction of the workspace, goes on a branch of its own (Launcher::fork) beside what follows;
  /// *dxSumBranch receives the branch (nullptr without one), which the caller joins
  /// (Launcher::join) before the workspace is used again.
  static void launch(Launcher &l, Address x, Address dy, Address argmax, Address gamma, Address beta, Address mean,
                     Address rstd, Address dx, Address dgamma, Address dbeta, Address dxSum, Address workspace,
                     int64_t workspaceFloats, int64_t n, int64_t c, int64_t h, int64_t w, bool relu, bool pool,
                     CUstream stream = nullptr, CUstream *dxSumBranch = nullptr);
};
TILE_LIBRARY_KERNEL(BatchNorm2dBackwardSplit);

namespace detail {
inline void checkBnSplit(const char *kernel, int64_t n, int64_t c, int64_t h, int64_t w, bool pool, int64_t need,
                         int64_t have) {
  checkRange(kernel, "h", h, 1, kMaxI32);
  checkRange(kernel, "w", w, 1, kMaxI32);
  checkNchw(kernel, n, c, h * w);
  if (pool && (h < 2 || w < 2)) fail(kernel, "pooling needs h, w >= 2 (got " + num(h) + ", " + num(w) + ")");
  if (have < need)
    fail(kernel,
         "the workspace holds " + num(have) + " floats; " + num(need) + " needed (BatchNormSplit::workspaceElements)");
}
} // namespace detail

inline void BatchNorm2dForwardSplit::launch(Launcher &l, Address x, Address y, Address argmax, Address gamma,
                                            Address beta, Address mean, Address rstd, const ChannelStats &stats,
                                            Address workspace, int64_t workspaceFloats, int64_t n, int64_t c, int64_t h,
                                            int64_t w, float eps, bool relu, bool pool, CUstream stream) {
  const int64_t count = n * h * w;
  if (stats.rows < 1 || stats.tiles != detail::pixelBlocks(n * h * w, stats.rows) || 2 * stats.tiles * c > kMaxI32)
    fail(name, "the partial statistics (" + num(stats.tiles) + " tiles of " + num(stats.rows) + " rows) do not cover " +
                   num(n) + " images of h x w = " + num(h * w));
  auto [tilesPer, statSplits] = BatchNormSplit::statsSplitting(stats.tiles, c);
  detail::checkBnSplit(name, n, c, h, w, pool, 2 * statSplits * c, workspaceFloats);
  if (!(eps > 0.0f)) fail(name, "eps must be > 0");
  if (c == 0) return;
  launchKernel<BatchNorm2dStatsPartial>(l, {c, statSplits}, BatchNormSplit::kWarps, stream, stats.data, workspace,
                                        int32_t(count), int32_t(c), int32_t(stats.tiles), int32_t(stats.rows),
                                        int32_t(tilesPer), BatchNormSplit::kBlock);
  auto [per, splits] = BatchNormSplit::splitting(pool ? n * (h / 2) * (w / 2) : count, c);
  launchKernel<BatchNorm2dForwardSplit>(
      l, {c, splits}, BatchNormSplit::kWarps, stream, x, y, argmax, gamma, beta, mean, rstd, workspace, int32_t(n),
      int32_t(c), int32_t(h), int32_t(w), int32_t(statSplits), int32_t(stats.tiles), int32_t(stats.rows),
      int32_t(tilesPer), int32_t(per), eps, BatchNormSplit::kBlock, BatchNormSplit::kMaxSplits, relu ? 1 : 0,
      !pool        ? 0
      : w % 2 == 0 ? kBnPoolWindows
                   : 1);
}

inline void BatchNorm2dBackwardSplit::launch(Launcher &l, Address x, Address dy, Address argmax, Address gamma,
                                             Address beta, Address mean, Address rstd, Address dx, Address dgamma,
                                             Address dbeta, Address dxSum, Address workspace, int64_t workspaceFloats,
                                             int64_t n, int64_t c, int64_t h, int64_t w, bool relu, bool pool,
                                             CUstream stream, CUstream *dxSumBranch) {
  if (dxSumBranch) *dxSumBranch = nullptr;
  if (dxSumBranch && stream)
    fail(name, "a branch for the sum of dx forks from the launcher's own line (stream nullptr)");
  // Even h and w: pooling windows cover every input once, and the kernels walk windows.
  const bool windows = pool && h % 2 == 0 && w % 2 == 0;
  const int poolMode = windows ? kBnPoolWindows : pool ? 1 : 0;
  auto [per, splits] = BatchNormSplit::splitting(windows ? n * (h / 2) * (w / 2) : n * h * w, c);
  detail::checkBnSplit(name, n, c, h, w, pool, 3 * splits * c, workspaceFloats);
  if (c == 0) return;
  const bool sumDx = dxSum.ptr() != 0;
  launchKernel<BatchNorm2dBackwardReduce>(l, {c, splits}, BatchNormSplit::kWarps, stream, x, dy, argmax, gamma, beta,
                                          mean, rstd, workspace, int32_t(n), int32_t(c), int32_t(h), int32_t(w),
                                          int32_t(per), BatchNormSplit::kBlock, relu ? 1 : 0, poolMode);
  launchKernel<BatchNorm2dBackwardSplit>(l, {c, splits}, BatchNormSplit::kWarps, stream, x, dy, argmax, gamma, beta,
                                         mean, rstd, dx, dgamma, dbeta, workspace, int32_t(n), int32_t(c), int32_t(h),
                                         int32_t(w), int32_t(per), BatchNormSplit::kBlock, BatchNormSplit::kMaxSplits,
                                         relu ? 1 : 0, poolMode, sumDx ? 1 : 0);
  if (!sumDx) return;
  CUstream sumOn = stream;
  if (dxSumBranch) sumOn = *dxSumBranch = l.fork();
  SumPartials::launch(l, workspace.plus<float>(2 * splits * c), dxSum, c, splits, sumOn);
}

} // namespace tile::kernels
