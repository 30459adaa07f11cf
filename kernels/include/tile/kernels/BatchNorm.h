//===- BatchNorm.h - batchnorm2d with batch statistics (+ relu, + pooling) -===//
// NCHW float32, statistics per channel over (N, H, W), biased variance, never as
// E[x²] - E[x]²: either two passes over x (the sum, then squared deviations from the
// mean), or (STATS = 1) from per-tile partial sums and centred sums of squares written by
// the producer of x (Conv2dForward's epilogue), combined as Chan et al. do. One program
// per channel loops over the channel's N x H x W elements in BLOCK chunks.
// Fusions that remove passes over memory:
//   RELU = 1  forward y = relu(bn(x)); backward takes the relu output's gradient and
//             recomputes the mask from x and the saved statistics;
//   POOL = 1  forward writes maxpool2x2(relu?(bn(x))) and its argmax (int8, 0..3 as
//             MaxPool2dForward) instead of the full-size output; backward takes the
//             pooled gradient and the argmax (as MaxPool2dBackward would, fused);
//   STATS = 1 forward reads the producer's partial statistics instead of two passes.
#pragma once

#include "tile/kernels/Nchw.h"

namespace tile::kernels {

/// y = (x - mean[c]) * rstd[c] * gamma[c] + beta[c] (then relu, then 2x2 max pooling as
/// flagged), with mean[c] and rstd[c] = 1 / sqrt(biased var + eps) written for the
/// backward. argmax is used with POOL only, stats with STATS only.
struct BatchNorm2dForward {
  static constexpr const char *name = "batchnorm2d_fwd";
  static constexpr auto body = [](Ptr<float> x, Ptr<float> y, Ptr<int8_t> argmax, Ptr<float> gamma, Ptr<float> beta,
                                  Ptr<float> mean, Ptr<float> rstd, Ptr<float> stats, I32 n, I32 channels, I32 h, I32 w,
                                  I32 statTiles, I32 statRows, F32 eps, Const<int> BLOCK, Const<int> RELU,
                                  Const<int> POOL, Const<int> STATS) {
    Value c = program_id(0);
    Value hw = h * w, count = n * hw;
    Value countF = cast(count, DType::f32);
    Value mu, var;
    if (STATS) {
      // Σ over tiles of the sums gives the mean; each tile's centred sum of squares plus
      // rows_t · (mean_t - mean)² gives the total's.
      auto tiles = [&](Value t0) {
        Value t = t0 + arange(0, BLOCK);
        return std::pair{t, t < statTiles};
      };
      Value total = for_range(0, statTiles, BLOCK, zeros({BLOCK}, DType::f32), [&](Value t0, Value acc) {
        auto [t, mask] = tiles(t0);
        return acc + load(stats + t * channels + c, mask, 0.0f);
      });
      mu = sum(total) / countF;
      Value squares = for_range(0, statTiles, BLOCK, zeros({BLOCK}, DType::f32), [&](Value t0, Value acc) {
        auto [t, mask] = tiles(t0);
        Value rows = detail::statsRowsOf(t, count, statRows);
        Value d = load(stats + t * channels + c, mask, 0.0f) / rows - mu;
        return acc + where(mask, load(stats + (statTiles + t) * channels + c, mask, 0.0f) + rows * d * d, 0.0f);
      });
      var = sum(squares) / countF;
    } else {
      auto elements = [&](Value i0) {
        Value i = i0 + arange(0, BLOCK);
        return std::pair{detail::channelOffsets(i, c, channels, hw), i < count};
      };
      Value total = for_range(0, count, BLOCK, zeros({BLOCK}, DType::f32), [&](Value i0, Value acc) {
        auto [offs, mask] = elements(i0);
        return acc + load(x + offs, mask, 0.0f);
      });
      mu = sum(total) / countF;
      Value squares = for_range(0, count, BLOCK, zeros({BLOCK}, DType::f32), [&](Value i0, Value acc) {
        auto [offs, mask] = elements(i0);
        Value d = where(mask, load(x + offs, mask, 0.0f) - mu, 0.0f);
        return acc + d * d;
      });
      var = sum(squares) / countF;
    }
    Value r = rsqrt(var + eps);
    store(mean + c, mu);
    store(rstd + c, r);
    Value scale = r * load(gamma + c), shift = load(beta + c);
    auto normalise = [&](Value v) {
      v = (v - mu) * scale + shift;
      return RELU ? maximum(v, 0.0f) : v;
    };
    if (POOL == 0) {
      for_range(0, count, BLOCK, [&](Value i0) {
        Value i = i0 + arange(0, BLOCK);
        Value offs = detail::channelOffsets(i, c, channels, hw), mask = i < count;
        store(y + offs, normalise(load(x + offs, mask, 0.0f)), mask);
      });
    } else {
      Value oh = h / 2, ow = w / 2;
      Value ohw = oh * ow, outputs = n * ohw;
      for_range(0, outputs, BLOCK, [&](Value j0) {
        Value j = j0 + arange(0, BLOCK);
        Value mask = j < outputs;
        Value img = j / ohw, q = j % ohw;
        Value base = x + (img * channels + c) * hw + (q / ow) * (2 * w) + (q % ow) * 2;
        Value best = normalise(load(base, mask, 0.0f));
        Value idx = zeros({BLOCK}, DType::i32);
        const int offsets[3][2] = {{0, 1}, {1, 0}, {1, 1}}; // (row, column) of window positions 1..3
        for (int p = 0; p < 3; ++p) {
          Value v = normalise(load(base + offsets[p][0] * w + offsets[p][1], mask, 0.0f));
          Value better = v > best;
          best = where(better, v, best);
          idx = where(better, p + 1, idx);
        }
        Value out = (img * channels + c) * ohw + q;
        store(y + out, best, mask);
        store(argmax + out, cast(idx, DType::i8), mask);
      });
    }
  };
  static constexpr std::array params{"x",     "y",     "argmax",   "gamma", "beta", "mean",       "rstd",
                                     "stats", "n",     "channels", "h",     "w",    "stat_tiles", "stat_rows",
                                     "eps",   "BLOCK", "RELU",     "POOL",  "STATS"};
  static std::vector<Variant> variants() {
    std::vector<Variant> v;
    for (int stats = 0; stats < 2; ++stats)
      for (int pool = 0; pool < 2; ++pool)
        for (int relu = 0; relu < 2; ++relu) v.push_back({{kBatchNormBlock, relu, pool, stats}, kBatchNormWarps});
    return v;
  }

  /// x, y [n, c, h, w] (y may be x); gamma, beta, mean, rstd [c]. stats: the producer's
  /// partial statistics of x (null: two passes over x).
  static void launch(Launcher &l, Address x, Address y, Address gamma, Address beta, Address mean, Address rstd,
                     int64_t n, int64_t c, int64_t h, int64_t w, float eps, bool relu,
                     const ChannelStats *stats = nullptr, CUstream stream = nullptr) {
    run(l, x, y, nullptr, gamma, beta, mean, rstd, n, c, h, w, eps, relu, false, stats, stream);
  }
  /// As launch(), then 2x2 max pooling: y and argmax (int8) [n, c, h/2, w/2].
  static void launchPooled(Launcher &l, Address x, Address y, Address argmax, Address gamma, Address beta, Address mean,
                           Address rstd, int64_t n, int64_t c, int64_t h, int64_t w, float eps, bool relu,
                           const ChannelStats *stats = nullptr, CUstream stream = nullptr) {
    run(l, x, y, argmax, gamma, beta, mean, rstd, n, c, h, w, eps, relu, true, stats, stream);
  }

private:
  static void run(Launcher &l, Address x, Address y, Address argmax, Address gamma, Address beta, Address mean,
                  Address rstd, int64_t n, int64_t c, int64_t h, int64_t w, float eps, bool relu, bool pool,
                  const ChannelStats *stats, CUstream stream) {
    checkRange(name, "h", h, 1, kMaxI32);
    checkRange(name, "w", w, 1, kMaxI32);
    detail::checkNchw(name, n, c, h * w);
    if (!(eps > 0.0f)) fail(name, "eps must be > 0");
    if (pool && (h < 2 || w < 2)) fail(name, "pooling needs h, w >= 2 (got " + num(h) + ", " + num(w) + ")");
    if (stats && (stats->rows < 1 || stats->tiles != detail::pixelBlocks(n * h * w, stats->rows) ||
                  2 * stats->tiles * c > kMaxI32))
      fail(name, "the partial statistics (" + num(stats->tiles) + " tiles of " + num(stats->rows) +
                     " rows) do not cover " + num(n) + " images of h x w = " + num(h * w));
    if (c == 0) return;
    launchKernel<BatchNorm2dForward>(l, {c}, kBatchNormWarps, stream, x, y, argmax, gamma, beta, mean, rstd,
                                     stats ? stats->data : Address(nullptr), int32_t(n), int32_t(c), int32_t(h),
                                     int32_t(w), int32_t(stats ? stats->tiles : 0), int32_t(stats ? stats->rows : 1),
                                     eps, kBatchNormBlock, relu ? 1 : 0, pool ? 1 : 0, stats ? 1 : 0);
  }
};
TILE_LIBRARY_KERNEL(BatchNorm2dForward);

namespace detail {
/// x̂ = (x - mean)·rstd and the gradient reaching the normalisation (dy, routed from the
/// pooled gradient to each window's argmax if POOL, masked by relu's if RELU) at elements
/// i of channel c (offsets `offs`, channelOffsets(i, c, channels, hw)): the per-element
/// arithmetic of every batchnorm backward (BatchNorm2dBackward, BatchNormSplit.h's).
struct BnGradients {
  Value offs, xhat, gy, mask;
};
inline BnGradients bnGradients(Value i, Value offs, Value mask, Value c, Value channels, Value h, Value w, Value hw,
                               Value x, Value dy, Value argmax, Value mu, Value r, Value scale, Value shift, int RELU,
                               int POOL) {
  Value xc = load(x + offs, mask, 0.0f) - mu;
  Value gy;
  if (POOL) {
    Value oh = h / 2, ow = w / 2;
    Value p = i % hw;
    Value ih = p / w, iw = p % w;
    Value covered = mask & (ih / 2 < oh) & (iw / 2 < ow);
    Value o = ((i / hw) * channels + c) * (oh * ow) + (ih / 2) * ow + iw / 2;
    Value at = cast(load(argmax + o, covered, 0), DType::i32) == (ih % 2) * 2 + iw % 2;
    gy = where(covered & at, load(dy + o, covered, 0.0f), 0.0f);
  } else {
    gy = load(dy + offs, mask, 0.0f);
  }
  if (RELU) gy = where(xc * scale + shift > 0.0f, gy, 0.0f);
  return {offs, xc * r, gy, mask};
}
} // namespace detail

/// From g (the gradient of bn(x): dy, times the relu mask recomputed if RELU, after
/// routing the pooled gradient to each window's argmax if POOL) and x̂ = (x - mean)·rstd:
///   dbeta[c] = Σ g,  dgamma[c] = Σ g·x̂,
///   dx = gamma · rstd / m · (m·g - Σ g - x̂ · Σ g·x̂)   (m = n·h·w per channel),
/// and (DXSUM = 1) dxSum[c] = Σ dx.
struct BatchNorm2dBackward {
  static constexpr const char *name = "batchnorm2d_bwd";
  static constexpr auto body = [](Ptr<float> x, Ptr<float> dy, Ptr<int8_t> argmax, Ptr<float> gamma, Ptr<float> beta,
                                  Ptr<float> mean, Ptr<float> rstd, Ptr<float> dx, Ptr<float> dgamma, Ptr<float> dbeta,
                                  Ptr<float> dxSum, I32 n, I32 channels, I32 h, I32 w, Const<int> BLOCK,
                                  Const<int> RELU, Const<int> POOL, Const<int> DXSUM) {
    Value c = program_id(0);
    Value hw = h * w, count = n * hw;
    Value countF = cast(count, DType::f32);
    Value mu = load(mean + c), r = load(rstd + c), g = load(gamma + c);
    Value scale = r * g, shift = load(beta + c);
    // x̂ and the gradient reaching the normalisation, for BLOCK elements from i0.
    auto grads = [&](Value i0) {
      Value i = i0 + arange(0, BLOCK);
      Value offs = detail::channelOffsets(i, c, channels, hw), mask = i < count;
      return detail::bnGradients(i, offs, mask, c, channels, h, w, hw, x, dy, argmax, mu, r, scale, shift, RELU, POOL);
    };
    std::vector<Value> sums = for_range(0, count, BLOCK, {zeros({BLOCK}, DType::f32), zeros({BLOCK}, DType::f32)},
                                        [&](Value i0, std::vector<Value> acc) {
                                          auto [offs, xhat, gy, mask] = grads(i0);
                                          return std::vector<Value>{acc[0] + gy, acc[1] + where(mask, gy * xhat, 0.0f)};
                                        });
    Value sumG = sum(sums[0]), sumGX = sum(sums[1]);
    store(dbeta + c, sumG);
    store(dgamma + c, sumGX);
    Value meanG = sumG / countF, meanGX = sumGX / countF;
    Value dxTotal = for_range(0, count, BLOCK, zeros({BLOCK}, DType::f32), [&](Value i0, Value acc) {
      auto [offs, xhat, gy, mask] = grads(i0);
      Value d = scale * (gy - meanG - xhat * meanGX);
      store(dx + offs, d, mask);
      return DXSUM ? acc + where(mask, d, 0.0f) : acc;
    });
    if (DXSUM) store(dxSum + c, sum(dxTotal));
  };
  static constexpr std::array params{"x",  "dy",     "argmax", "gamma",  "beta", "mean",     "rstd",
                                     "dx", "dgamma", "dbeta",  "dx_sum", "n",    "channels", "h",
                                     "w",  "BLOCK",  "RELU",   "POOL",   "DXSUM"};
  static std::vector<Variant> variants() {
    std::vector<Variant> v;
    for (int dxSum = 0; dxSum < 2; ++dxSum)
      for (int pool = 0; pool < 2; ++pool)
        for (int relu = 0; relu < 2; ++relu) v.push_back({{kBatchNormBlock, relu, pool, dxSum}, kBatchNormWarps});
    return v;
  }

  /// x, dy, dx [n, c, h, w] (dx may be dy); gamma, beta, mean, rstd, dgamma, dbeta [c].
  /// dxSum (null: not wanted): [c] sums of dx over (n, h, w), which is the bias gradient
  /// of a convolution producing x (saves ChannelSum's pass over dx).
  static void launch(Launcher &l, Address x, Address dy, Address gamma, Address beta, Address mean, Address rstd,
                     Address dx, Address dgamma, Address dbeta, int64_t n, int64_t c, int64_t h, int64_t w, bool relu,
                     Address dxSum = nullptr, CUstream stream = nullptr) {
    run(l, x, dy, nullptr, gamma, beta, mean, rstd, dx, dgamma, dbeta, dxSum, n, c, h, w, relu, false, stream);
  }
  /// The backward of launchPooled: dy and argmax [n, c, h/2, w/2] (the pooled output's
  /// gradient and the forward's argmax), dx [n, c, h, w].
  static void launchPooled(Launcher &l, Address x, Address dy, Address argmax, Address gamma, Address beta,
                           Address mean, Address rstd, Address dx, Address dgamma, Address dbeta, int64_t n, int64_t c,
                           int64_t h, int64_t w, bool relu, Address dxSum = nullptr, CUstream stream = nullptr) {
    run(l, x, dy, argmax, gamma, beta, mean, rstd, dx, dgamma, dbeta, dxSum, n, c, h, w, relu, true, stream);
  }

private:
  static void run(Launcher &l, Address x, Address dy, Address argmax, Address gamma, Address beta, Address mean,
                  Address rstd, Address dx, Address dgamma, Address dbeta, Address dxSum, int64_t n, int64_t c,
                  int64_t h, int64_t w, bool relu, bool pool, CUstream stream) {
    checkRange(name, "h", h, 1, kMaxI32);
    checkRange(name, "w", w, 1, kMaxI32);
    detail::checkNchw(name, n, c, h * w);
    if (pool && (h < 2 || w < 2)) fail(name, "pooling needs h, w >= 2 (got " + num(h) + ", " + num(w) + ")");
    if (c == 0) return;
    const bool sumDx = dxSum.ptr() != 0;
    launchKernel<BatchNorm2dBackward>(l, {c}, kBatchNormWarps, stream, x, dy, argmax, gamma, beta, mean, rstd, dx,
                                      dgamma, dbeta, dxSum, int32_t(n), int32_t(c), int32_t(h), int32_t(w),
                                      kBatchNormBlock, relu ? 1 : 0, pool ? 1 : 0, sumDx ? 1 : 0);
  }
};
TILE_LIBRARY_KERNEL(BatchNorm2dBackward);

} // namespace tile::kernels
