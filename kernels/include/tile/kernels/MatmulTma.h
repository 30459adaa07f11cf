//===- MatmulTma.h - C = A·B through tensor descriptors (TMA on sm_90a) ----===//
// Included at the end of Matmul.h (Matmul::launch runs it for row-major f16/bf16 operands).
#pragma once

#include "tile/kernels/Matmul.h"

namespace tile::kernels {

/// C[M, N] = A[M, K] · B[K, N] (+ bias[N]) (then relu) for row-major A and B that tensor
/// descriptors describe (16-byte aligned, rows of a multiple of 16 bytes), f16/bf16 inputs,
/// f32 accumulation; C is f32 (C = float) or the inputs' type (C = T: one rounding at the store,
/// what torch.matmul and Triton's tutorial write). Matmul's program with its K loop reading both
/// operands as TensorDesc blocks: on sm_90a they move by TMA into the wgmma rings
/// (cp.async.bulk.tensor on mbarriers: no thread computes an address); elsewhere, and on the CPU
/// executor, by masked loads like Matmul's.
template <class T, class C = float> struct MatmulTma {
  static_assert(std::is_same_v<T, f16> || std::is_same_v<T, bf16>, "MatmulTma is for f16/bf16 inputs");
  static_assert(std::is_same_v<C, float> || std::is_same_v<C, T>, "C is f32 or the inputs' type");
  static constexpr bool kHalfOut = !std::is_same_v<C, float>;
  static constexpr const char *name = std::is_same_v<T, f16> ? (kHalfOut ? "matmul_tma_f16_out_f16" : "matmul_tma_f16")
                                                             : (kHalfOut ? "matmul_tma_bf16_out_bf16" : "matmul_tma_bf16");
  static constexpr auto body = [](TensorDesc<T, 2> a, TensorDesc<T, 2> b, Ptr<C> c, Ptr<float> bias, I32 m, I32 n,
                                  I32 k, I32 strideCm, Const<int> BM, Const<int> BN, Const<int> BK,
                                  Const<int> GROUP_M, Const<int> EPILOGUE) {
    auto [pidM, pidN] = detail::groupedTile(program_id(0), m, n, BM, BN, GROUP_M);
    Value m0 = pidM * BM, n0 = pidN * BN;
    Value acc = for_range(0, k, BK, zeros({BM, BN}, DType::f32), [&](Value k0, Value acc) {
      return dot(load(a, {m0, k0}, {BM, BK}), load(b, {k0, n0}, {BK, BN}), acc);
    });
    detail::matmulEpilogue(acc, c, bias, m0 + arange(0, BM), n0 + arange(0, BN), m, n, strideCm, 1, EPILOGUE);
  };
  static constexpr std::array params{"a", "b", "c", "bias", "m", "n", "k", "strideCm",
                                     "BM", "BN", "BK", "GROUP_M", "EPILOGUE"};

  /// bench/'s sweep (f32 C, epilogue None), beside the library's two wgmma tiles.
  static constexpr MatmulConfig kSweep[] = {{128, 256, 32, 8, 6}, {128, 256, 64, 8, 3}, {128, 128, 64, 4, 4},
                                            {128, 128, 64, 8, 4}, {256, 128, 64, 8, 4}, {128, 256, 32, 8, 4},
                                            {128, 128, 64, 4, 3}, {64, 128, 64, 4, 4},  {64, 256, 64, 4, 4}};
  /// The library's tiles, largest first: Matmul's two wgmma tiles, then smaller ones for grids
  /// those leave short of a wave (tileFor).
  static constexpr MatmulConfig kMedium{64, 128, 64, 4, 4};
  static std::vector<MatmulConfig> tiles() {
    return {kMatmulTensorCoreLarge, kMatmulTensorCore, kMedium, kMatmulTensorCoreSmall};
  }
  /// The first of tiles() whose grid fills a wave (7/8 of the SMs; the 128 x 128 tile two waves,
  /// else its one warpgroup per SM idles half the tensor cores), else the smallest.
  static MatmulConfig tileFor(int64_t m, int64_t n) {
    auto programs = [&](const MatmulConfig &t) { return ceilDiv(m, t.bm) * ceilDiv(n, t.bn); };
    if (programs(kMatmulTensorCoreLarge) * 8 >= kMatmulWaveTiles * 7) return kMatmulTensorCoreLarge;
    if (programs(kMatmulTensorCore) * 8 >= kMatmulWaveTiles * 14) return kMatmulTensorCore;
    if (programs(kMedium) * 8 >= kMatmulWaveTiles * 7) return kMedium;
    return kMatmulTensorCoreSmall;
  }
  static bool hasTile(const MatmulConfig &c) {
    auto same = [&](const MatmulConfig &t) {
      return t.bm == c.bm && t.bn == c.bn && t.bk == c.bk && t.numWarps == c.numWarps && t.numStages == c.numStages;
    };
    for (const MatmulConfig &t : tiles())
      if (same(t)) return true;
    if constexpr (!kHalfOut && std::is_same_v<T, f16>)
      for (const MatmulConfig &t : kSweep)
        if (same(t)) return true;
    return false;
  }

  static std::vector<Variant> variants() {
    std::vector<Variant> v;
    // Every specialisation (ragged shapes too: the copies are TMA's whatever the facts).
    for (int epilogue = 0; epilogue < 3; ++epilogue)
      for (const MatmulConfig &t : tiles())
        v.push_back({{t.bm, t.bn, t.bk, kMatmulGroupM, epilogue}, t.numWarps, /*unitOnly=*/false, t.numStages});
    if constexpr (!kHalfOut && std::is_same_v<T, f16>)
      for (const MatmulConfig &t : kSweep)
        v.push_back({{t.bm, t.bn, t.bk, kMatmulGroupM, 0}, t.numWarps, /*unitOnly=*/true, t.numStages});
    return v;
  }

  /// C = A·B (+ bias) (relu) for row-major A [m, k] and B [k, n] with row strides lda and ldb,
  /// C with row stride ldc (elements). Refuses operands a descriptor cannot describe, naming
  /// the rule (Matmul<T>::launch takes any strides). The tile: tileFor's (`config`: one of
  /// tiles(), or kSweep's for f16 inputs and f32 C).
  static void launch(Launcher &l, Address a, Address b, Address c, Address bias, int64_t m, int64_t n, int64_t k,
                     int64_t lda, int64_t ldb, int64_t ldc, MatmulEpilogue epilogue = MatmulEpilogue::None,
                     CUstream stream = nullptr, const MatmulConfig *config = nullptr) {
    detail::checkMatmulArgs(name, true, m, n, k, lda, 1, ldb, 1, ldc, 1, false);
    if (m == 0 || n == 0) return;
    for (auto [base, rows, cols, ld, what] : {std::tuple{a, m, k, lda, "operand a"}, {b, k, n, ldb, "operand b"}})
      if (std::string why = checkTensorDesc(what, TensorDescArg{base.ptr(), {rows, cols}, {ld, 1}}, 2, sizeof(T));
          !why.empty())
        fail(name, why);
    if (config && !hasTile(*config)) fail(name, "no compiled variant has the requested tile");
    const MatmulConfig cfg = config ? *config : tileFor(m, n);
    if ((ceilDiv(m, cfg.bm) * cfg.bm - 1) * ldc + ceilDiv(n, cfg.bn) * cfg.bn - 1 > kMaxI32)
      fail(name, "m, n = " + num(m) + ", " + num(n) + " with row stride " + num(ldc) + " exceed int32 indexing");
    launchTile(l, cfg, a, b, c, bias, m, n, k, lda, ldb, ldc, epilogue, stream);
  }

  /// The launch for a checked problem and chosen tile (Matmul::launch's path too).
  static void launchTile(Launcher &l, const MatmulConfig &cfg, Address a, Address b, Address c, Address bias,
                         int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
                         MatmulEpilogue epilogue, CUstream stream) {
    launchKernel<MatmulTma>(l, {ceilDiv(m, cfg.bm) * ceilDiv(n, cfg.bn)}, {cfg.numWarps, cfg.numStages}, stream,
                            TensorDescArg{a.ptr(), {m, k}, {lda, 1}}, TensorDescArg{b.ptr(), {k, n}, {ldb, 1}}, c,
                            bias, int32_t(m), int32_t(n), int32_t(k), int32_t(ldc), cfg.bm, cfg.bn, cfg.bk,
                            kMatmulGroupM, int(epilogue));
  }
};

using MatmulTmaF16 = MatmulTma<f16>;
using MatmulTmaBF16 = MatmulTma<bf16>;
using MatmulTmaF16OutF16 = MatmulTma<f16, f16>;
using MatmulTmaBF16OutBF16 = MatmulTma<bf16, bf16>;
TILE_LIBRARY_KERNEL(MatmulTmaF16);
TILE_LIBRARY_KERNEL(MatmulTmaBF16);
TILE_LIBRARY_KERNEL(MatmulTmaF16OutF16);
TILE_LIBRARY_KERNEL(MatmulTmaBF16OutBF16);

} // namespace tile::kernels
