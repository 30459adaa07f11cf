//===- Conv.h - conv2d 3x3, stride 1, pad 1, with bias: implicit GEMMs ----===//
// NCHW float32, weights [cout, cin, 3, 3] (as PyTorch): the forward, the data and weight
// gradients and the bias gradient (ChannelSum), each product an implicit GEMM (ConvGemm.h).
// The forward can also write per-tile partial statistics of y for the batchnorm that
// follows (launchWithStats, ChannelStats): its two passes over y for mean and variance
// are then replaced by a pass over the small partials.
#pragma once

#include "tile/kernels/ConvGemm.h"
#include "tile/kernels/Nchw.h" // ChannelStats, detail::channelOffsets, detail::checkNchw
#include "tile/kernels/Partials.h"

#include <algorithm>
#include <utility>

namespace tile::kernels {

/// taps[tap, co, ci] = weight[co, ci, tap] (tap = kh·3 + kw): the copy the tap-major tiles read.
struct ConvWeightTaps {
  static constexpr const char *name = "conv3x3_weight_taps";
  static constexpr auto body = [](Ptr<float> weight, Ptr<float> taps, I32 cin, I32 cout, Const<int> BLOCK) {
    Value i = program_id(0) * BLOCK + arange(0, BLOCK); // an index of taps
    Value planes = cout * cin, tap = i / planes, co = (i % planes) / cin, ci = i % cin;
    Value mask = i < planes * 9;
    store(taps + i, load(weight + (co * cin + ci) * 9 + tap, mask, 0.0f), mask);
  };
  static constexpr std::array params{"weight", "taps", "cin", "cout", "BLOCK"};
  static constexpr int kBlock = 256, kWarps = 4;
  static std::vector<Variant> variants() { return {{{kBlock}, kWarps}}; }

  /// weight [cout, cin, 3, 3] -> taps [9, cout, cin] (9·cout·cin floats).
  static void launch(Launcher &l, Address weight, Address taps, int64_t cin, int64_t cout, CUstream stream = nullptr) {
    checkRange(name, "cin", cin, 1, kMaxI32);
    checkRange(name, "cout", cout, 1, kMaxI32);
    if (9 * cin * cout > kMaxI32 - kBlock)
      fail(name, "cout x cin = " + num(cout) + " x " + num(cin) + " exceeds the kernel's int32 indexing");
    launchKernel<ConvWeightTaps>(l, {ceilDiv(9 * cin * cout, kBlock)}, kWarps, stream, weight, taps, int32_t(cin),
                                 int32_t(cout), kBlock);
  }
};
TILE_LIBRARY_KERNEL(ConvWeightTaps);

/// y[n, co, oh, ow] = bias[co] + Σ_{ci, kh, kw} x[n, ci, oh + kh - 1, ow + kw - 1] · W[co, ci, kh, kw].
/// Program (i, j): pixels [i·BM, (i+1)·BM) of all n·h·w, in image order (a tile may end one
/// image and start the next: no tile is padding past an image's end), and output channels
/// [j·BN, (j+1)·BN). STATS = 1 also writes, per program i (a ChannelStats tile) and channel,
/// the sum of y and the sum of squared deviations from the tile's mean, for
/// BatchNorm2dForward: the batchnorm then needs no pass over y for its statistics.
/// `weight` is [cout, cin, 3, 3], or [9, cout, cin] for TAPS = 1 (ConvWeightTaps).
struct Conv2dForward {
  static constexpr const char *name = "conv3x3_fwd";
  static constexpr auto body = [](Ptr<float> x, Ptr<float> weight, Ptr<float> bias, Ptr<float> y, Ptr<float> stats,
                                  I32 n, I32 cin, I32 h, I32 w, I32 cout, Const<int> BM, Const<int> BN, Const<int> BK,
                                  Const<int> STATS, Const<int> TF32, Const<int> TAPS) {
    Value hw = h * w, k = cin * 9, count = n * hw;
    Value pid = program_id(0), q0 = pid * BM;
    Value q = col(q0 + arange(0, BM)), rn = program_id(1) * BN + arange(0, BN);
    Value img = q / hw, p = q % hw;
    Value oh = p / w, ow = p % w;
    Value pMask = q < count, nMask = row(rn < cout);
    Value pixels = x + img * cin * hw + p;
    Value acc = TAPS ? detail::tapMajorGemm(pixels, weight, oh, ow, pMask, nMask, cin, h, w, 1, BM, BN, BK, TF32,
                                            [&](Value c, Value tap) { return (tap * cout + row(rn)) * cin + c; })
                     : detail::flatGemm(pixels, weight, oh, ow, pMask, nMask, cin, h, w, 1, BM, BN, BK, TF32,
                                        [&](Value ks) { return row(rn) * k + ks; });
    acc = acc + row(load(bias + rn, rn < cout, 0.0f));
    store(lanes_along(y + img * cout * hw + row(rn) * hw + p, 0), acc, pMask & nMask);
    if (STATS) {
      Value rows = cast(minimum(count - q0, BM), DType::f32);
      Value tileSum = sum(where(pMask, acc, 0.0f), 0);
      Value d = where(pMask, acc - row(tileSum / rows), 0.0f);
      Value tiles = (count + (BM - 1)) / BM;
      store(stats + pid * cout + rn, tileSum, rn < cout);
      store(stats + (tiles + pid) * cout + rn, sum(d * d, 0), rn < cout);
    }
  };
  static constexpr std::array params{"x", "weight", "bias", "y",  "stats", "n",     "cin",  "h",
                                     "w", "cout",   "BM",   "BN", "BK",    "STATS", "TF32", "TAPS"};

  /// The tile launch() uses: exact f32 on 32×32×8 FMA tiles (no spills on sm_90); TF32 on
  /// tensor-core tiles (the fastest of bench_conv's sweep on an H200 at batch 64 and 1024,
  /// bench/NOTES.md): tap-major when the caller has the tap-major weights (`tapMajor`; conv2 at
  /// batch 1024: 149 µs against the flat order's 210), else flat (each output channel's
  /// weights one contiguous run); tap-major 256-pixel tiles from kConvLargePixels (n·h·w) on
  /// (conv2 at batch 1024: 141 against 149 µs; at batch 64 26 against 19).
  static ConvTile tile(int64_t cin, ConvPrecision precision, bool tapMajor = false, int64_t pixels = 0) {
    if (precision == ConvPrecision::Exact) return {32, 32, 8, 4, 0};
    if (cin < 16) return {128, 32, 8, 4, 0};
    if (tapMajor && pixels >= kConvLargePixels) return {256, 64, 16, 8, 1};
    return {128, 64, 16, 8, tapMajor ? 1 : 0};
  }
  /// Every tile a launch can ask for in `precision`: the policy's and the bench's sweep (bench_conv).
  static std::vector<ConvTile> tiles(ConvPrecision precision) {
    if (precision == ConvPrecision::Exact) return {{32, 32, 8, 4, 0}, {32, 32, 8, 4, 1}};
    return {{64, 32, 8, 4, 0},   {128, 32, 8, 4, 0},  {128, 64, 16, 8, 0}, {64, 64, 16, 4, 1},
            {128, 64, 16, 8, 1}, {128, 64, 32, 8, 1}, {256, 64, 16, 8, 1}};
  }
  static std::vector<Variant> variants() { return detail::convVariants(tiles, /*withStats=*/true); }

  /// The partial statistics launchWithStats writes into `data` (statsElements() floats), for
  /// the same precision and tap-major weights or not (launchWithStats returns them too).
  static ChannelStats channelStats(Address data, int64_t n, int64_t cin, int64_t h, int64_t w, ConvPrecision precision,
                                   bool tapMajor = false) {
    return statsOfTile(data, n, h, w, tile(cin, precision, tapMajor, n * h * w));
  }
  /// The layout of the statistics tile t writes: a ChannelStats tile per program.
  static ChannelStats statsOfTile(Address data, int64_t n, int64_t h, int64_t w, ConvTile t) {
    return {data, detail::pixelBlocks(n * h * w, t.bm), t.bm};
  }
  /// Enough for every tile (the fewest rows per tile: the most tiles).
  static int64_t statsElements(int64_t n, int64_t h, int64_t w, int64_t cout) {
    return 2 * detail::pixelBlocks(n * h * w, kMinTileRows) * cout;
  }
  static constexpr int kMinTileRows = 32;

  /// x [n, cin, h, w], weight [cout, cin, 3, 3], bias [cout] -> y [n, cout, h, w]. weightTaps:
  /// the same weights tap-major (ConvWeightTaps), or null (flat tiles only: slower).
  static void launch(Launcher &l, Address x, Address weight, Address bias, Address y, const ConvProblem &p,
                     CUstream stream = nullptr) {
    launchTile(l, tile(p.cin, p.precision, p.weightTaps.ptr() != 0, p.n * p.h * p.w), x, weight, bias, y, nullptr, p,
               stream);
  }
  /// As launch(), also writing y's per-channel partial statistics into `stats`
  /// (statsElements() floats); returns their layout, for BatchNorm2dForward.
  static ChannelStats launchWithStats(Launcher &l, Address x, Address weight, Address bias, Address y, Address stats,
                                      const ConvProblem &p, CUstream stream = nullptr) {
    const ConvTile t = tile(p.cin, p.precision, p.weightTaps.ptr() != 0, p.n * p.h * p.w);
    launchTile(l, t, x, weight, bias, y, &stats, p, stream);
    return statsOfTile(stats, p.n, p.h, p.w, t);
  }
  /// One of tiles(precision), stats optional: for benchmarks and tests. A tap-major tile needs
  /// weightTaps.
  static void launchTile(Launcher &l, ConvTile t, Address x, Address weight, Address bias, Address y,
                         const Address *stats, const ConvProblem &p, CUstream stream = nullptr) {
    detail::checkConv(name, p);
    const auto [n, cin, h, w, cout, precision, weightTaps] = p;
    weight = detail::tileWeights(name, t, weight, weightTaps);
    const int64_t programs = detail::pixelBlocks(n * h * w, t.bm);
    if (stats && statsElements(n, h, w, cout) > kMaxI32) fail(name, "the partial statistics exceed int32 indexing");
    launchKernel<Conv2dForward>(l, {programs, ceilDiv(cout, t.bn)}, t.warps, stream, x, weight, bias, y,
                                stats ? *stats : Address(nullptr), int32_t(n), int32_t(cin), int32_t(h), int32_t(w),
                                int32_t(cout), t.bm, t.bn, t.bk, stats ? 1 : 0, int(precision), t.taps);
  }
};
TILE_LIBRARY_KERNEL(Conv2dForward);

/// dx[n, ci, ih, iw] = Σ_{co, kh, kw} dy[n, co, ih + 1 - kh, iw + 1 - kw] · W[co, ci, kh, kw].
/// Program (i, j): pixels [i·BM, (i+1)·BM) of all n·h·w, in image order (a tile may end one
/// image and start the next: no tile is padding past an image's end), and input channels
/// [j·BN, (j+1)·BN). `weight` as Conv2dForward's.
struct Conv2dBackwardData {
  static constexpr const char *name = "conv3x3_bwd_data";
  static constexpr auto body = [](Ptr<float> dy, Ptr<float> weight, Ptr<float> dx, I32 n, I32 cin, I32 h, I32 w,
                                  I32 cout, Const<int> BM, Const<int> BN, Const<int> BK, Const<int> TF32,
                                  Const<int> TAPS) {
    Value hw = h * w;
    Value q = col(program_id(0) * BM + arange(0, BM)), rn = program_id(1) * BN + arange(0, BN);
    Value img = q / hw, p = q % hw;
    Value ih = p / w, iw = p % w;
    Value pMask = q < n * hw, nMask = row(rn < cin);
    Value pixels = dy + img * cout * hw + p;
    Value acc = TAPS ? detail::tapMajorGemm(pixels, weight, ih, iw, pMask, nMask, cout, h, w, -1, BM, BN, BK, TF32,
                                            [&](Value c, Value tap) { return (tap * cout + c) * cin + row(rn); })
                     : detail::flatGemm(pixels, weight, ih, iw, pMask, nMask, cout, h, w, -1, BM, BN, BK, TF32,
                                        [&](Value ks) { return ((ks / 9) * cin + row(rn)) * 9 + ks % 9; });
    store(lanes_along(dx + img * cin * hw + row(rn) * hw + p, 0), acc, pMask & nMask);
  };
  static constexpr std::array params{"dy",   "weight", "dx", "n",  "cin",  "h",   "w",
                                     "cout", "BM",     "BN", "BK", "TF32", "TAPS"};

  /// Tap-major where the caller has the tap-major weights and cout fills K blocks (conv2 at
  /// batch 1024 in TF32: 166 µs against the flat order's 422), else flat. From
  /// kConvLargePixels on, 256-pixel tiles on 4 warps (conv2 at batch 1024: 149 against 155 µs
  /// on 8 warps, 166 for 128 pixels); below, 128 pixels and 32-wide K blocks (batch 64: 19.4
  /// against 31 µs for 256).
  static ConvTile tile(int64_t cout, ConvPrecision precision, bool tapMajor = false, int64_t pixels = 0) {
    if (precision == ConvPrecision::Exact) return {32, 32, 8, 4, tapMajor && cout >= 8 ? 1 : 0};
    if (!tapMajor || cout < 16) return {64, 32, 8, 4, 0};
    return pixels >= kConvLargePixels ? ConvTile{256, 32, 16, 4, 1} : ConvTile{128, 32, 32, 4, 1};
  }
  static std::vector<ConvTile> tiles(ConvPrecision precision) {
    if (precision == ConvPrecision::Exact) return {{32, 32, 8, 4, 0}, {32, 32, 8, 4, 1}};
    return {{64, 32, 8, 4, 0},   {64, 32, 16, 4, 1},  {128, 32, 16, 4, 1},
            {128, 32, 16, 8, 1}, {128, 32, 32, 4, 1}, {256, 32, 16, 4, 1}};
  }
  static std::vector<Variant> variants() { return detail::convVariants(tiles, /*withStats=*/false); }

  /// dy [n, cout, h, w], weight [cout, cin, 3, 3] -> dx [n, cin, h, w]. weightTaps: the same
  /// weights tap-major (ConvWeightTaps), or null (flat tiles only: slower).
  static void launch(Launcher &l, Address dy, Address weight, Address dx, const ConvProblem &p,
                     CUstream stream = nullptr) {
    launchTile(l, tile(p.cout, p.precision, p.weightTaps.ptr() != 0, p.n * p.h * p.w), dy, weight, dx, p, stream);
  }
  /// One of tiles(precision). A tap-major tile needs weightTaps.
  static void launchTile(Launcher &l, ConvTile t, Address dy, Address weight, Address dx, const ConvProblem &p,
                         CUstream stream = nullptr) {
    detail::checkConv(name, p);
    const auto [n, cin, h, w, cout, precision, weightTaps] = p;
    weight = detail::tileWeights(name, t, weight, weightTaps);
    launchKernel<Conv2dBackwardData>(l, {ceilDiv(n * h * w, t.bm), ceilDiv(cin, t.bn)}, t.warps, stream, dy, weight, dx,
                                     int32_t(n), int32_t(cin), int32_t(h), int32_t(w), int32_t(cout), t.bm, t.bn, t.bk,
                                     int(precision), t.taps);
  }
};
TILE_LIBRARY_KERNEL(Conv2dBackwardData);

/// partial[s, co, ci·9 + kh·3 + kw] = Σ over the pixels (i, oh, ow) of split s of
/// dy[i, co, oh, ow] · x[i, ci, oh + kh - 1, ow + kw - 1]. The reduction runs over items: BK-pixel
/// blocks of all n·h·w pixels in image order (an item may end one image and start the next: none
/// is padding past an image's end), split s taking items [s·itemsPerSplit, (s+1)·itemsPerSplit);
/// both gathers run along the item's pixels (lanes along K, `lanes_along`).
/// TAPS = 0: N = (ci, tap) flat, grid (cdiv(cout, BM) · cdiv(cin·9, BN), splits).
/// TAPS = 1: one tap per program, N = ci, grid (9 · cdiv(cout, BM) · cdiv(cin, BN), splits):
/// the gather's shift is a scalar and its padding mask per pixel.
/// TAPS = 2: all 9 taps per program, each its own accumulator, grid (cdiv(cout, BM) ·
/// cdiv(cin, BN), splits): one dy tile feeds 9 products (9x fewer dy reads than TAPS = 1),
/// the 9 shifted x gathers of an item overlapping in L1.
struct Conv2dBackwardWeight {
  static constexpr const char *name = "conv3x3_bwd_weight";
  static constexpr auto body = [](Ptr<float> x, Ptr<float> dy, Ptr<float> partial, I32 n, I32 cin, I32 h, I32 w,
                                  I32 cout, I32 itemsPerSplit, Const<int> BM, Const<int> BN, Const<int> BK,
                                  Const<int> TF32, Const<int> TAPS) {
    Value hw = h * w, nTotal = cin * 9, count = n * hw;
    Value split = program_id(1);
    Value lo = split * itemsPerSplit, hi = minimum(lo + itemsPerSplit, (count + (BK - 1)) / BK);
    Value out = partial + split * (cout * nTotal);
    // dy's [BM, BK] tile of item `it` for output channels rm ([BM, 1]), and the item's pixels:
    // their images and the pixels within them ([BK]).
    auto dyTile = [&](Value it, Value rm, Value mMask) {
      Value q = it * BK + arange(0, BK);
      Value img = q / hw, p = q % hw, pMask = q < count;
      Value a = load(lanes_along(dy + row(img * cout * hw + p) + rm * hw, 1), mMask & row(pMask), 0.0f);
      return std::tuple{a, img, p, pMask};
    };
    // x's [BK, BN] tile of the item's pixels p shifted by one tap, for input channels ci ([1, BN]).
    auto shiftedX = [&](Value img, Value p, Value pMask, Value ci, Value nMask, Value tap) {
      Value dh = tap / 3 - 1, dw = tap % 3 - 1;
      Value ih = col(p / w + dh), iw = col(p % w + dw); // [BK, 1]
      Value inside = col(pMask) & (ih >= 0) & (ih < h) & (iw >= 0) & (iw < w);
      return load(lanes_along(x + col(img * cin * hw + p + (dh * w + dw)) + ci * hw, 0), inside & nMask, 0.0f);
    };
    if (TAPS == 2) {
      Value tilesN = (cin + (BN - 1)) / BN;
      Value rm = col((program_id(0) / tilesN) * BM + arange(0, BM));
      Value ci = row((program_id(0) % tilesN) * BN + arange(0, BN));
      Value mMask = rm < cout, nMask = ci < cin;
      std::vector<Value> init(9, zeros({BM, BN}, DType::f32));
      std::vector<Value> acc = for_range(lo, hi, 1, init, [&](Value it, std::vector<Value> acc) {
        auto [a, img, p, pMask] = dyTile(it, rm, mMask);
        for (int tap = 0; tap < 9; ++tap)
          acc[tap] = dot(a, shiftedX(img, p, pMask, ci, nMask, constant(tap, DType::i32)), acc[tap],
                         detail::convPrecision(TF32));
        return acc;
      });
      for (int tap = 0; tap < 9; ++tap) store(out + rm * nTotal + ci * 9 + tap, acc[tap], mMask & nMask);
    } else if (TAPS == 1) {
      Value tilesN = (cin + (BN - 1)) / BN, tilesMN = ((cout + (BM - 1)) / BM) * tilesN;
      Value tap = program_id(0) / tilesMN, t = program_id(0) % tilesMN;
      Value rm = col((t / tilesN) * BM + arange(0, BM)), ci = row((t % tilesN) * BN + arange(0, BN));
      Value mMask = rm < cout, nMask = ci < cin;
      Value acc = for_range(lo, hi, 1, zeros({BM, BN}, DType::f32), [&](Value it, Value acc) {
        auto [a, img, p, pMask] = dyTile(it, rm, mMask);
        return dot(a, shiftedX(img, p, pMask, ci, nMask, tap), acc, detail::convPrecision(TF32));
      });
      store(out + rm * nTotal + ci * 9 + tap, acc, mMask & nMask);
    } else {
      Value tilesN = (nTotal + (BN - 1)) / BN;
      Value rm = col((program_id(0) / tilesN) * BM + arange(0, BM)), rn = (program_id(0) % tilesN) * BN + arange(0, BN);
      Value ci = row(rn / 9), tap = row(rn % 9);
      Value dh = tap / 3 - 1, dw = tap % 3 - 1; // [1, BN]
      Value mMask = rm < cout, nMask = row(rn < nTotal);
      Value acc = for_range(lo, hi, 1, zeros({BM, BN}, DType::f32), [&](Value it, Value acc) {
        auto [a, img, p, pMask] = dyTile(it, rm, mMask);
        Value ih = col(p / w) + dh, iw = col(p % w) + dw; // [BK, BN]
        Value inside = col(pMask) & nMask & (ih >= 0) & (ih < h) & (iw >= 0) & (iw < w);
        Value b = load(lanes_along(x + col(img * cin * hw + p) + (ci * hw + dh * w + dw), 0), inside, 0.0f);
        return dot(a, b, acc, detail::convPrecision(TF32));
      });
      store(out + rm * nTotal + row(rn), acc, mMask & nMask);
    }
  };
  static constexpr std::array params{"x",  "dy", "partial", "n",    "cin", "h", "w", "cout", "items_per_split",
                                     "BM", "BN", "BK",      "TF32", "TAPS"};
  /// Splits of the pixels: enough for kTargetPrograms programs, each with at least
  /// kMinPerSplit pixels (fewer do not pay their partial tile's store and reduction), at most
  /// maxSplits(): kMaxSplits, or more while the partials stay under kSmallPartials floats (a
  /// small weight, like the first layer's 288, whose one output tile would otherwise leave
  /// the GPU two programs per SM).
  static constexpr int64_t kTargetPrograms = 1056, kMinPerSplit = 256, kMaxSplits = 256,
                           kSmallPartials = int64_t(1) << 18;
  static int64_t maxSplits(int64_t cin, int64_t cout) {
    return std::max(kMaxSplits, std::min(kTargetPrograms, kSmallPartials / (cout * cin * 9)));
  }

  /// Exact f32 on 32×32×8 FMA tiles. TF32 where cin fills a tile: all 9 taps per program once
  /// the pixels give programs enough (conv2 at batch 1024: 185 µs against one tap per
  /// program's 269), else one tap per program (batch 64: 32 µs against 43, 9x the programs).
  /// A first layer's (cin·9 = 9 columns) in 16 columns (conv1 at batch 1024: 84 µs against
  /// 32 columns' 116).
  static ConvTile tile(int64_t cin, ConvPrecision precision, int64_t pixels) {
    if (precision == ConvPrecision::Exact) return {32, 32, 8, 4, 0};
    if (cin < 16) return {32, 16, 32, 4, 0};
    return pixels >= kConvLargePixels ? ConvTile{64, 32, 32, 8, 2} : ConvTile{32, 32, 32, 4, 1};
  }
  static std::vector<ConvTile> tiles(ConvPrecision precision) {
    if (precision == ConvPrecision::Exact) return {{32, 32, 8, 4, 0}, {32, 32, 8, 4, 1}};
    return {{32, 32, 8, 4, 0},  {32, 32, 16, 4, 0}, {32, 32, 32, 4, 1}, {64, 32, 16, 8, 1},
            {64, 32, 16, 8, 2}, {64, 32, 32, 8, 2}, {32, 16, 32, 4, 0}};
  }
  static std::vector<Variant> variants() { return detail::convVariants(tiles, /*withStats=*/false); }

  /// Output tiles (programs per split) of tile t.
  static int64_t tilesPerSplit(ConvTile t, int64_t cin, int64_t cout) {
    if (t.taps == 2) return ceilDiv(cout, t.bm) * ceilDiv(cin, t.bn);
    return t.taps ? 9 * ceilDiv(cout, t.bm) * ceilDiv(cin, t.bn) : ceilDiv(cout, t.bm) * ceilDiv(cin * 9, t.bn);
  }
  /// Items (BK-pixel blocks of the n·hw pixels) per split, and the splits, for n images of hw pixels.
  static std::pair<int64_t, int64_t> splitting(int64_t n, int64_t hw, int64_t cin, int64_t cout, ConvTile t) {
    const int64_t items = ceilDiv(n * hw, t.bk);
    const int64_t wanted =
        std::min(ceilDiv(n * hw, kMinPerSplit), ceilDiv(kTargetPrograms, tilesPerSplit(t, cin, cout)));
    const int64_t per = ceilDiv(items, std::clamp<int64_t>(wanted, 1, maxSplits(cin, cout)));
    return {per, ceilDiv(items, per)};
  }
  /// Floats of the partial-sum buffer launch() needs (for any tile: never more splits than
  /// ceil(n·h·w / kMinPerSplit), at most maxSplits()).
  static int64_t workspaceElements(int64_t n, int64_t cin, int64_t h, int64_t w, int64_t cout) {
    return std::clamp<int64_t>(ceilDiv(n * h * w, kMinPerSplit), 1, maxSplits(cin, cout)) * cout * cin * 9;
  }

  /// x [n, cin, h, w], dy [n, cout, h, w] -> dweight [cout, cin, 3, 3], through
  /// `workspace` (workspaceElements() floats).
  /// (p.weightTaps is not read: every tile reads x and dy only.)
  static void launch(Launcher &l, Address x, Address dy, Address dweight, Address workspace, int64_t workspaceFloats,
                     const ConvProblem &p, CUstream stream = nullptr) {
    launchTile(l, tile(p.cin, p.precision, p.n * p.h * p.w), x, dy, dweight, workspace, workspaceFloats, p, stream);
  }
  static void launchTile(Launcher &l, ConvTile t, Address x, Address dy, Address dweight, Address workspace,
                         int64_t workspaceFloats, const ConvProblem &p, CUstream stream = nullptr);
};
TILE_LIBRARY_KERNEL(Conv2dBackwardWeight);

inline void Conv2dBackwardWeight::launchTile(Launcher &l, ConvTile t, Address x, Address dy, Address dweight,
                                             Address workspace, int64_t workspaceFloats, const ConvProblem &p,
                                             CUstream stream) {
  detail::checkConv(name, p);
  const auto [n, cin, h, w, cout, precision, weightTaps] = p;
  auto [per, splits] = splitting(n, h * w, cin, cout, t);
  int64_t need = splits * cout * cin * 9;
  if (workspaceFloats < need)
    fail(name, "the workspace holds " + num(workspaceFloats) + " floats; " + num(need) + " needed (workspaceElements)");
  if (need > kMaxI32) fail(name, "the partial sums (" + num(need) + " floats) exceed the kernel's int32 indexing");
  launchKernel<Conv2dBackwardWeight>(l, {tilesPerSplit(t, cin, cout), splits}, t.warps, stream, x, dy, workspace,
                                     int32_t(n), int32_t(cin), int32_t(h), int32_t(w), int32_t(cout), int32_t(per),
                                     t.bm, t.bn, t.bk, int(precision), t.taps);
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
