//===- Conv.h - conv2d 3x3, stride 1, pad 1, with bias: implicit GEMMs ----===//
// NCHW float32, weights [cout, cin, 3, 3] (as PyTorch). Every product runs on `dot` (the
// exact f32 FMA path) over tiles gathered straight from the tensors, with masks for the
// zero padding and the ragged edges (no im2col buffer):
//   forward      y[M = n·h·w, N = cout]  = im2col(x)[M, K = cin·9] · Wᵀ[K, N] + bias
//   backward dx  dx[M = n·h·w, N = cin]  = im2col(dy)[M, K = cout·9] · W(flipped)[K, N]
//   backward dW  dW[M = cout, N = cin·9] = dyᵀ[M, K = n·h·w] · im2col(x)[K, N], with K split
//                over programs into a partial-sum buffer that SumPartials reduces in a fixed
//                order (deterministic, no atomics)
//   backward db  db[c] = Σ over n, h, w of dy (ChannelSum; or, when a batchnorm follows,
//                its backward's dxSum, which needs no pass of its own).
// The forward can also write per-tile partial statistics of y for the batchnorm that
// follows (launchWithStats, ChannelStats): its two passes over y for mean and variance
// are then replaced by a pass over the small partials.
#pragma once

#include "tile/kernels/BatchNorm.h" // detail::channelOffsets, detail::checkNchw

#include <algorithm>
#include <utility>

namespace tile::kernels {

/// The products of the convolutions: exact f32 (one FMA per product, as the CPU float64
/// checks expect), or TF32 tensor-core inputs (sm_80+; inputs rounded to 10 mantissa bits,
/// relative error ~1e-3: compare with TF32-sized tolerances).
enum class ConvPrecision : int { Exact = 0, Tf32 = 1 };

namespace detail {
inline Precision convPrecision(int tf32) { return tf32 ? Precision::TF32 : Precision::IEEE; }

inline void checkConv(const char *kernel, int64_t n, int64_t cin, int64_t h, int64_t w, int64_t cout) {
  checkRange(kernel, "n", n, 1, kMaxI32);
  checkRange(kernel, "cin", cin, 1, kMaxI32);
  checkRange(kernel, "h", h, 1, kMaxI32);
  checkRange(kernel, "w", w, 1, kMaxI32);
  checkRange(kernel, "cout", cout, 1, kMaxI32);
  // Offsets reach a tile beyond the largest tensor (masked lanes still form addresses).
  const int64_t slack = 1 << 16;
  int64_t c = cin > cout ? cin : cout;
  if (h * w > kMaxI32 || n * h * w > kMaxI32 - slack || n * c * h * w > kMaxI32 - slack || cout * cin * 9 > kMaxI32 - slack)
    fail(kernel, "n, cin, h, w, cout = " + num(n) + ", " + num(cin) + ", " + num(h) + ", " + num(w) + ", " + num(cout) +
                     " exceed the kernel's int32 indexing");
}
} // namespace detail

/// y[n, co, oh, ow] = bias[co] + Σ_{ci, kh, kw} x[n, ci, oh + kh - 1, ow + kw - 1] · W[co, ci, kh, kw].
/// STATS = 1 also writes, per BM-pixel tile t and channel, the sum of y and the sum of
/// squared deviations from the tile's mean (ChannelStats, for BatchNorm2dForward): the
/// batchnorm then needs no pass over y for its statistics.
struct Conv2dForward {
  static constexpr const char *name = "conv3x3_fwd";
  static constexpr auto body = [](Ptr<float> x, Ptr<float> weight, Ptr<float> bias, Ptr<float> y, Ptr<float> stats,
                                  I32 n, I32 cin, I32 h, I32 w, I32 cout, Const<int> BM, Const<int> BN, Const<int> BK,
                                  Const<int> STATS, Const<int> TF32) {
    Value hw = h * w, m = n * hw, k = cin * 9;
    Value pidM = program_id(0);
    Value rm = pidM * BM + arange(0, BM), rn = program_id(1) * BN + arange(0, BN);
    Value img = col(rm / hw), p = col(rm % hw);
    Value oh = p / w, ow = p % w;
    Value mMask = col(rm < m), nMask = row(rn < cout);
    Value acc = for_range(0, k, BK, zeros({BM, BN}, DType::f32), [&](Value k0, Value acc) {
      Value ks = k0 + arange(0, BK);
      Value ci = row(ks / 9), tap = row(ks % 9);
      Value ih = oh + tap / 3 - 1, iw = ow + tap % 3 - 1; // [BM, BK]
      Value inside = mMask & row(ks < k) & (ih >= 0) & (ih < h) & (iw >= 0) & (iw < w);
      Value a = load(x + (img * cin + ci) * hw + ih * w + iw, inside, 0.0f);
      Value b = load(weight + row(rn) * k + col(ks), col(ks < k) & nMask, 0.0f); // [BK, BN]
      return dot(a, b, acc, detail::convPrecision(TF32));
    });
    acc = acc + row(load(bias + rn, rn < cout, 0.0f));
    store(y + (img * cout + row(rn)) * hw + p, acc, mMask & nMask);
    if (STATS) {
      Value rows = cast(minimum(m - pidM * BM, BM), DType::f32);
      Value tileSum = sum(where(mMask, acc, 0.0f), 0);
      Value d = where(mMask, acc - row(tileSum / rows), 0.0f);
      Value tiles = (m + (BM - 1)) / BM;
      store(stats + pidM * cout + rn, tileSum, rn < cout);
      store(stats + (tiles + pidM) * cout + rn, sum(d * d, 0), rn < cout);
    }
  };
  static constexpr std::array params{"x", "weight", "bias", "y",  "stats", "n",     "cin", "h",
                                     "w", "cout",   "BM",   "BN", "BK",    "STATS", "TF32"};
  static constexpr int kBM = 32, kBN = 32, kBK = 8, kWarps = 4; // no spills (ptxas sm_90)
  static std::vector<Variant> variants() {
    std::vector<Variant> v;
    for (int tf32 = 0; tf32 < 2; ++tf32)
      for (int stats = 0; stats < 2; ++stats) v.push_back({{kBM, kBN, kBK, stats, tf32}, kWarps});
    return v;
  }

  /// The partial statistics launchWithStats writes into `data` (statsElements() floats).
  static ChannelStats channelStats(Address data, int64_t n, int64_t h, int64_t w) {
    return {data, ceilDiv(n * h * w, kBM), kBM};
  }
  static int64_t statsElements(int64_t n, int64_t h, int64_t w, int64_t cout) {
    return 2 * ceilDiv(n * h * w, kBM) * cout;
  }

  /// x [n, cin, h, w], weight [cout, cin, 3, 3], bias [cout] -> y [n, cout, h, w].
  static void launch(Launcher &l, Address x, Address weight, Address bias, Address y, int64_t n, int64_t cin,
                     int64_t h, int64_t w, int64_t cout, CUstream stream = nullptr,
                     ConvPrecision precision = ConvPrecision::Exact) {
    run(l, x, weight, bias, y, nullptr, n, cin, h, w, cout, stream, precision);
  }
  /// As launch(), also writing y's per-channel partial statistics into `stats`
  /// (statsElements() floats; pass channelStats(stats, ...) to BatchNorm2dForward).
  static void launchWithStats(Launcher &l, Address x, Address weight, Address bias, Address y, Address stats,
                              int64_t n, int64_t cin, int64_t h, int64_t w, int64_t cout, CUstream stream = nullptr,
                              ConvPrecision precision = ConvPrecision::Exact) {
    run(l, x, weight, bias, y, &stats, n, cin, h, w, cout, stream, precision);
  }

private:
  static void run(Launcher &l, Address x, Address weight, Address bias, Address y, const Address *stats, int64_t n,
                  int64_t cin, int64_t h, int64_t w, int64_t cout, CUstream stream, ConvPrecision precision) {
    detail::checkConv(name, n, cin, h, w, cout);
    if (stats && statsElements(n, h, w, cout) > kMaxI32) fail(name, "the partial statistics exceed int32 indexing");
    launchKernel<Conv2dForward>(l, {ceilDiv(n * h * w, kBM), ceilDiv(cout, kBN)}, kWarps, stream, x, weight, bias, y,
                                stats ? *stats : Address(nullptr), int32_t(n), int32_t(cin), int32_t(h), int32_t(w),
                                int32_t(cout), kBM, kBN, kBK, stats ? 1 : 0, int(precision));
  }
};
TILE_LIBRARY_KERNEL(Conv2dForward);

/// dx[n, ci, ih, iw] = Σ_{co, kh, kw} dy[n, co, ih + 1 - kh, iw + 1 - kw] · W[co, ci, kh, kw].
struct Conv2dBackwardData {
  static constexpr const char *name = "conv3x3_bwd_data";
  static constexpr auto body = [](Ptr<float> dy, Ptr<float> weight, Ptr<float> dx, I32 n, I32 cin, I32 h, I32 w,
                                  I32 cout, Const<int> BM, Const<int> BN, Const<int> BK, Const<int> TF32) {
    Value hw = h * w, m = n * hw, k = cout * 9;
    Value rm = program_id(0) * BM + arange(0, BM), rn = program_id(1) * BN + arange(0, BN);
    Value img = col(rm / hw), p = col(rm % hw);
    Value ih = p / w, iw = p % w;
    Value mMask = col(rm < m), nMask = row(rn < cin);
    Value acc = for_range(0, k, BK, zeros({BM, BN}, DType::f32), [&](Value k0, Value acc) {
      Value ks = k0 + arange(0, BK);
      Value co = ks / 9, tap = ks % 9;
      Value oh = ih + 1 - row(tap / 3), ow = iw + 1 - row(tap % 3); // [BM, BK]
      Value inside = mMask & row(ks < k) & (oh >= 0) & (oh < h) & (ow >= 0) & (ow < w);
      Value a = load(dy + (img * cout + row(co)) * hw + oh * w + ow, inside, 0.0f);
      Value b = load(weight + (col(co) * cin + row(rn)) * 9 + col(tap), col(ks < k) & nMask, 0.0f); // [BK, BN]
      return dot(a, b, acc, detail::convPrecision(TF32));
    });
    store(dx + (img * cin + row(rn)) * hw + p, acc, mMask & nMask);
  };
  static constexpr std::array params{"dy", "weight", "dx", "n", "cin", "h", "w", "cout", "BM", "BN", "BK", "TF32"};
  static constexpr int kBM = 32, kBN = 32, kBK = 8, kWarps = 4; // no spills (ptxas sm_90)
  static std::vector<Variant> variants() { return {{{kBM, kBN, kBK, 0}, kWarps}, {{kBM, kBN, kBK, 1}, kWarps}}; }

  /// dy [n, cout, h, w], weight [cout, cin, 3, 3] -> dx [n, cin, h, w].
  static void launch(Launcher &l, Address dy, Address weight, Address dx, int64_t n, int64_t cin, int64_t h,
                     int64_t w, int64_t cout, CUstream stream = nullptr,
                     ConvPrecision precision = ConvPrecision::Exact) {
    detail::checkConv(name, n, cin, h, w, cout);
    launchKernel<Conv2dBackwardData>(l, {ceilDiv(n * h * w, kBM), ceilDiv(cin, kBN)}, kWarps, stream, dy, weight, dx,
                                     int32_t(n), int32_t(cin), int32_t(h), int32_t(w), int32_t(cout), kBM, kBN, kBK,
                                     int(precision));
  }
};
TILE_LIBRARY_KERNEL(Conv2dBackwardData);

/// partial[s, co, ci·9 + kh·3 + kw] = Σ over the pixels k = (n, oh, ow) of split s
/// ([s·kPerSplit, (s+1)·kPerSplit)) of dy[n, co, oh, ow] · x[n, ci, oh + kh - 1, ow + kw - 1].
/// Grid: (cdiv(cout, BM) · cdiv(cin·9, BN), splits).
struct Conv2dBackwardWeight {
  static constexpr const char *name = "conv3x3_bwd_weight";
  static constexpr auto body = [](Ptr<float> x, Ptr<float> dy, Ptr<float> partial, I32 n, I32 cin, I32 h, I32 w,
                                  I32 cout, I32 kPerSplit, Const<int> BM, Const<int> BN, Const<int> BK,
                                  Const<int> TF32) {
    Value hw = h * w, kTotal = n * hw, nTotal = cin * 9;
    Value tilesN = (nTotal + (BN - 1)) / BN;
    Value rm = (program_id(0) / tilesN) * BM + arange(0, BM), rn = (program_id(0) % tilesN) * BN + arange(0, BN);
    Value ci = row(rn / 9), tap = row(rn % 9);
    Value kh = tap / 3, kw = tap % 3;
    Value mMask = col(rm < cout), nMask = row(rn < nTotal);
    Value split = program_id(1);
    Value lo = split * kPerSplit, hi = minimum(lo + kPerSplit, kTotal);
    Value acc = for_range(lo, hi, BK, zeros({BM, BN}, DType::f32), [&](Value k0, Value acc) {
      Value ks = k0 + arange(0, BK);
      Value kMask = ks < hi;
      Value img = ks / hw, p = ks % hw;
      Value a = load(dy + (row(img) * cout + col(rm)) * hw + row(p), mMask & row(kMask), 0.0f); // [BM, BK]
      Value ih = col(p / w) + kh - 1, iw = col(p % w) + kw - 1;                                  // [BK, BN]
      Value inside = col(kMask) & nMask & (ih >= 0) & (ih < h) & (iw >= 0) & (iw < w);
      Value b = load(x + (col(img) * cin + ci) * hw + ih * w + iw, inside, 0.0f);
      return dot(a, b, acc, detail::convPrecision(TF32));
    });
    store(partial + split * (cout * nTotal) + col(rm) * nTotal + row(rn), acc, mMask & nMask);
  };
  static constexpr std::array params{"x",    "dy",         "partial", "n",  "cin", "h",
                                     "w",    "cout",       "k_per_split", "BM", "BN", "BK", "TF32"};
  static constexpr int kBM = 32, kBN = 32, kBK = 8, kWarps = 4; // no spills (ptxas sm_90)
  static constexpr int64_t kTargetPerSplit = 1024, kMaxSplits = 256;
  static std::vector<Variant> variants() { return {{{kBM, kBN, kBK, 0}, kWarps}, {{kBM, kBN, kBK, 1}, kWarps}}; }

  /// Pixels per split (a multiple of BK) and the number of splits for n·h·w pixels.
  static std::pair<int64_t, int64_t> splitting(int64_t pixels) {
    int64_t splits = std::min(kMaxSplits, std::max<int64_t>(1, ceilDiv(pixels, kTargetPerSplit)));
    int64_t per = ceilDiv(ceilDiv(pixels, splits), kBK) * kBK;
    return {per, ceilDiv(pixels, per)};
  }
  /// Floats of the partial-sum buffer launch() needs.
  static int64_t workspaceElements(int64_t n, int64_t cin, int64_t h, int64_t w, int64_t cout) {
    return splitting(n * h * w).second * cout * cin * 9;
  }

  /// x [n, cin, h, w], dy [n, cout, h, w] -> dweight [cout, cin, 3, 3], through
  /// `workspace` (workspaceElements() floats).
  static void launch(Launcher &l, Address x, Address dy, Address dweight, Address workspace,
                     int64_t workspaceFloats, int64_t n, int64_t cin, int64_t h, int64_t w, int64_t cout,
                     CUstream stream = nullptr, ConvPrecision precision = ConvPrecision::Exact);
};
TILE_LIBRARY_KERNEL(Conv2dBackwardWeight);

/// out[j] = Σ_{s < splits} part[s·len + j] in increasing s (reproducible).
struct SumPartials {
  static constexpr const char *name = "sum_partials";
  static constexpr auto body = [](Ptr<float> part, Ptr<float> out, I32 len, I32 splits, Const<int> BLOCK) {
    Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
    Value mask = offs < len;
    Value acc = for_range(0, splits, 1, zeros({BLOCK}, DType::f32),
                          [&](Value s, Value acc) { return acc + load(part + s * len + offs, mask, 0.0f); });
    store(out + offs, acc, mask);
  };
  static constexpr std::array params{"part", "out", "len", "splits", "BLOCK"};
  static constexpr int kBlock = 256, kWarps = 2;
  static std::vector<Variant> variants() { return {{{kBlock}, kWarps}}; }

  static void launch(Launcher &l, Address part, Address out, int64_t len, int64_t splits, CUstream stream = nullptr) {
    checkRange(name, "splits", splits, 1, kMaxI32);
    checkRange(name, "len", len, 0, kMaxI32 - kBlock);
    if (splits * len > kMaxI32) fail(name, "splits x len = " + num(splits) + " x " + num(len) + " exceeds int32 indexing");
    if (len == 0) return;
    launchKernel<SumPartials>(l, {ceilDiv(len, kBlock)}, kWarps, stream, part, out, int32_t(len), int32_t(splits),
                              kBlock);
  }
};
TILE_LIBRARY_KERNEL(SumPartials);

inline void Conv2dBackwardWeight::launch(Launcher &l, Address x, Address dy, Address dweight, Address workspace,
                                         int64_t workspaceFloats, int64_t n, int64_t cin, int64_t h, int64_t w,
                                         int64_t cout, CUstream stream, ConvPrecision precision) {
  detail::checkConv(name, n, cin, h, w, cout);
  auto [per, splits] = splitting(n * h * w);
  int64_t need = splits * cout * cin * 9;
  if (workspaceFloats < need)
    fail(name, "the workspace holds " + num(workspaceFloats) + " floats; " + num(need) + " needed (workspaceElements)");
  if (need > kMaxI32) fail(name, "the partial sums (" + num(need) + " floats) exceed the kernel's int32 indexing");
  launchKernel<Conv2dBackwardWeight>(l, {ceilDiv(cout, kBM) * ceilDiv(cin * 9, kBN), splits}, kWarps, stream, x, dy,
                                     workspace, int32_t(n), int32_t(cin), int32_t(h), int32_t(w), int32_t(cout),
                                     int32_t(per), kBM, kBN, kBK, int(precision));
  SumPartials::launch(l, workspace, dweight, cout * cin * 9, splits, stream);
}

/// out[c] = Σ_{n, h, w} x[n, c, h, w]: one program per channel (the conv bias gradient).
struct ChannelSum {
  static constexpr const char *name = "channel_sum";
  static constexpr auto body = [](Ptr<float> x, Ptr<float> out, I32 n, I32 channels, I32 hw, Const<int> BLOCK) {
    Value c = program_id(0);
    Value count = n * hw;
    Value acc = for_range(0, count, BLOCK, zeros({BLOCK}, DType::f32), [&](Value i0, Value acc) {
      Value i = i0 + arange(0, BLOCK);
      return acc + load(x + detail::channelOffsets(i, c, channels, hw), i < count, 0.0f);
    });
    store(out + c, sum(acc));
  };
  static constexpr std::array params{"x", "out", "n", "channels", "hw", "BLOCK"};
  static std::vector<Variant> variants() { return {{{kBatchNormBlock}, kBatchNormWarps}}; }

  /// x [n, c, h, w] -> out [c].
  static void launch(Launcher &l, Address x, Address out, int64_t n, int64_t c, int64_t h, int64_t w,
                     CUstream stream = nullptr) {
    detail::checkNchw(name, n, c, h * w);
    if (c == 0) return;
    launchKernel<ChannelSum>(l, {c}, kBatchNormWarps, stream, x, out, int32_t(n), int32_t(c), int32_t(h * w),
                             kBatchNormBlock);
  }
};
TILE_LIBRARY_KERNEL(ChannelSum);

} // namespace tile::kernels
