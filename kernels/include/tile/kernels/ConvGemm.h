//===- ConvGemm.h - the implicit GEMMs shared by the 3x3 convolutions ------===//
// NCHW float32, weights [cout, cin, 3, 3] (as PyTorch). Every product runs on `dot` (exact f32
// FMA, or TF32 tensor cores) over tiles gathered straight from the tensors, with masks for the
// zero padding and the ragged edges (no im2col buffer):
//   forward      y[M = n·h·w, N = cout]  = im2col(x)[M, K = 9·cin] · Wᵀ[K, N] + bias
//   backward dx  dx[M = n·h·w, N = cin]  = im2col(dy)[M, K = 9·cout] · W(flipped)[K, N]
//   backward dW  dW[M = cout, N = cin·9] = dyᵀ[M, K = n·h·w] · im2col(x)[K, N], with K split
//                over programs into a partial-sum buffer that SumPartials reduces in a fixed
//                order (deterministic, no atomics)
//   backward db  db[c] = Σ over n, h, w of dy (ChannelSum; or, when a batchnorm follows,
//                its backward's dxSum, which needs no pass of its own).
// Each program's pixels lie in one image (blocks of BM of its h·w), so a gather of shifted
// pixels is one contiguous run of the image per channel: coalesced along M, whatever w is.
// Two orders of the reduction (Const TAPS); which is faster depends on the kernel (bench_conv):
//   TAPS = 1  tap-major: K runs over the 9 taps, and within a tap over blocks of BK channels.
//             Within one K block the spatial shift is one scalar, so the padding mask is per
//             pixel ([BM, 1]). These tiles read a tap-major copy of the weights, [9, cout, cin]
//             (ConvWeightTaps, refreshed when the weights change), where a tap's block is
//             contiguous along both channels; in PyTorch's order its weights lie 9 floats apart.
//             For channel counts ≥ BK.
//   TAPS = 0  flat: K = channel·9 + tap in BK-wide blocks, the shift and mask per element; the
//             weights in PyTorch's order (the forward's block is one contiguous run per output
//             channel). For the first layer (1 input channel), where a tap-major block would be
//             mostly padding, and for callers without the tap-major copy.
#pragma once

#include "tile/kernels/Declare.h"

#include <string>
#include <vector>

namespace tile::kernels {

/// The products of the convolutions: exact f32 (one FMA per product, as the CPU float64
/// checks expect), or TF32 tensor-core inputs (sm_80+; inputs rounded to 10 mantissa bits,
/// relative error ~1e-3: compare with TF32-sized tolerances).
enum class ConvPrecision : int { Exact = 0, Tf32 = 1 };

/// One convolution launch: n images of cin channels of h x w pixels, cout output channels, and
/// how the products run. Call sites name the fields:
///   Conv2dForward::launch(l, x, weight, bias, y, {.n = 64, .cin = 1, .h = 28, .w = 28, .cout = 32});
struct ConvProblem {
  int64_t n = 0, cin = 0, h = 0, w = 0, cout = 0;
  ConvPrecision precision = ConvPrecision::Exact;
  /// The weights tap-major (ConvWeightTaps), or null: the tap-major tiles read them (faster);
  /// without them the launchers pick flat tiles.
  Address weightTaps = nullptr;
};

namespace detail {
inline Precision convPrecision(int tf32) { return tf32 ? Precision::TF32 : Precision::IEEE; }

inline void checkConv(const char *kernel, const ConvProblem &p) {
  const auto [n, cin, h, w, cout, precision, weightTaps] = p;
  checkRange(kernel, "n", n, 1, kMaxI32);
  checkRange(kernel, "cin", cin, 1, kMaxI32);
  checkRange(kernel, "h", h, 1, kMaxI32);
  checkRange(kernel, "w", w, 1, kMaxI32);
  checkRange(kernel, "cout", cout, 1, kMaxI32);
  // Offsets reach a tile beyond the largest tensor (masked lanes still form addresses).
  const int64_t slack = 1 << 16;
  int64_t c = cin > cout ? cin : cout;
  if (h * w > kMaxI32 || n * h * w > kMaxI32 - slack || n * c * h * w > kMaxI32 - slack ||
      cout * cin * 9 > kMaxI32 - slack)
    fail(kernel, "n, cin, h, w, cout = " + num(n) + ", " + num(cin) + ", " + num(h) + ", " + num(w) + ", " + num(cout) +
                     " exceed the kernel's int32 indexing");
}
} // namespace detail

/// One tile configuration of a convolution kernel: block sizes, warps, the reduction order
/// (`taps`: the kernel's Const TAPS; 0 flat, 1 tap-major, 2 all taps per program for the
/// weight gradient).
struct ConvTile {
  int bm, bn, bk, warps, taps;
};
/// "128x64x16w8taps": a tile's name in benchmarks and test messages.
inline std::string convTileName(ConvTile t) {
  static const char *const order[] = {"flat", "taps", "alltaps"};
  return std::to_string(t.bm) + "x" + std::to_string(t.bn) + "x" + std::to_string(t.bk) + "w" +
         std::to_string(t.warps) + (t.taps >= 0 && t.taps <= 2 ? order[t.taps] : "?");
}
/// Pixels (n·h·w) from which the TF32 policies take their large-batch tiles (MNIST's conv2: batch
/// 1024 above, 64 below).
constexpr int64_t kConvLargePixels = 65536;

namespace detail {
/// Σ over K = 9 taps × channels of src[c, pixel + shift·((kh - 1)·w + (kw - 1))] · W(c, tap, n)
/// for a [BM, BN] tile of pixels, tap-major (TAPS = 1): `pixels` ([BM, 1] pointers) points at
/// each row's pixel in channel 0 of its image, `shift` is +1 for the forward and -1 for the
/// data gradient. `weightOffsets(c, tap)` gives W's [BK, BN] offsets for channels c ([BK, 1])
/// and one tap (a scalar). oh, ow, pMask: [BM, 1]; nMask: [1, BN]. A K block's pixels are
/// shifted runs of their images, so the gather runs along M (lanes step along it: coalesced)
/// and its padding mask is per pixel.
template <class WeightOffsets>
Value tapMajorGemm(Value pixels, Ptr<float> weight, Value oh, Value ow, Value pMask, Value nMask, Value channels,
                   Value h, Value w, int shift, int bm, int bn, int bk, int tf32, WeightOffsets weightOffsets) {
  Value hw = h * w;
  Value blocks = (channels + (bk - 1)) / bk;
  return for_range(0, blocks * 9, 1, zeros({bm, bn}, DType::f32), [&](Value it, Value acc) {
    Value tap = it / blocks;
    Value c = (it % blocks) * bk + arange(0, bk);
    Value dh = (tap / 3 - 1) * shift, dw = (tap % 3 - 1) * shift;
    Value sh = oh + dh, sw = ow + dw; // [BM, 1]
    Value inside = pMask & (sh >= 0) & (sh < h) & (sw >= 0) & (sw < w);
    Value cMask = c < channels;
    Value a = load(lanes_along(pixels + (dh * w + dw) + row(c) * hw, 0), inside & row(cMask), 0.0f); // [BM, BK]
    Value b = load(weight + weightOffsets(col(c), tap), col(cMask) & nMask, 0.0f);                   // [BK, BN]
    return dot(a, b, acc, convPrecision(tf32));
  });
}

/// The same product in the flat order (TAPS = 0): K = channel·9 + tap in BK-wide blocks, the
/// shift per K column. `weightOffsets(ks)` gives W's [BK, BN] offsets for the K indices ks ([BK, 1]).
template <class WeightOffsets>
Value flatGemm(Value pixels, Ptr<float> weight, Value oh, Value ow, Value pMask, Value nMask, Value channels, Value h,
               Value w, int shift, int bm, int bn, int bk, int tf32, WeightOffsets weightOffsets) {
  Value hw = h * w, k = channels * 9;
  return for_range(0, k, bk, zeros({bm, bn}, DType::f32), [&](Value k0, Value acc) {
    Value ks = k0 + arange(0, bk);
    Value c = row(ks / 9), tap = row(ks % 9);
    Value dh = (tap / 3 - 1) * shift, dw = (tap % 3 - 1) * shift; // [1, BK]
    Value sh = oh + dh, sw = ow + dw;                             // [BM, BK]
    Value inside = pMask & row(ks < k) & (sh >= 0) & (sh < h) & (sw >= 0) & (sw < w);
    Value a = load(lanes_along(pixels + (c * hw + dh * w + dw), 0), inside, 0.0f);
    Value b = load(weight + weightOffsets(col(ks)), col(ks < k) & nMask, 0.0f); // [BK, BN]
    return dot(a, b, acc, convPrecision(tf32));
  });
}
/// The variants of a convolution kernel: every tile `tilesOf(precision)` declares, in both
/// precisions; consts (BM, BN, BK, [STATS,] TF32, TAPS), both STATS values where withStats.
template <class TilesOf> std::vector<Variant> convVariants(TilesOf tilesOf, bool withStats) {
  std::vector<Variant> v;
  for (ConvPrecision p : {ConvPrecision::Exact, ConvPrecision::Tf32})
    for (ConvTile t : tilesOf(p))
      for (int stats = 0; stats < (withStats ? 2 : 1); ++stats) {
        std::vector<int64_t> consts{t.bm, t.bn, t.bk};
        if (withStats) consts.push_back(stats);
        consts.insert(consts.end(), {int(p), t.taps});
        v.push_back({consts, t.warps});
      }
  return v;
}
/// The weights tile t reads: the tap-major copy for a tap-major tile (which needs it).
inline Address tileWeights(const char *kernel, ConvTile t, Address weight, Address weightTaps) {
  if (!t.taps) return weight;
  if (weightTaps.ptr() == 0)
    fail(kernel, "a tap-major tile reads the tap-major weights [9, cout, cin]: pass weightTaps (ConvWeightTaps)");
  return weightTaps;
}
} // namespace detail

} // namespace tile::kernels
