//===- Matmul.h - C = A·B (+ bias, relu) ------------------------------------===//
#pragma once

#include "tile/kernels/MatmulProblem.h"
#include "tile/kernels/MatmulTma.h" // Matmul::launch runs MatmulTma for operands descriptors describe

#include <type_traits>

namespace tile::kernels {

namespace detail {
/// The fused epilogue of a C tile (rows rm, columns rn): + bias[rn], relu, stored masked.
inline void matmulEpilogue(Value acc, Value c, Value bias, Value rm, Value rn, Value m, Value n, Operand strideCm,
                           Operand strideCn, int EPILOGUE) {
  if (EPILOGUE != int(MatmulEpilogue::None)) acc = acc + row(load(bias + rn, rn < n, 0.0f));
  if (EPILOGUE == int(MatmulEpilogue::BiasRelu)) acc = maximum(acc, 0.0f);
  store(c + col(rm) * strideCm + row(rn) * strideCn, acc, (col(rm) < m) & (row(rn) < n));
}

/// The traced operands of one matmul program (kernel parameters or values computed from them):
/// MatmulProblem's fields as the kernel sees them.
struct MatmulOperands {
  Value a, b, c, bias, m, n, k, strideAm, strideAk, strideBk, strideBn, strideCm, strideCn;
};
/// A matmul program's Const parameters.
struct MatmulConsts {
  int BM, BN, BK, GROUP_M, EPILOGUE, TF32;
};

/// The program of Matmul and BatchedMatmul: one BM x BN tile of C = A·B (+ bias) (relu)
/// for program `pid`, programs ordered in groups of GROUP_M tile rows; the operands point at
/// one problem's matrices. Traced where a kernel body calls it.
inline void matmulProgram(Value pid, const MatmulOperands &p, const MatmulConsts &t) {
  auto [a, b, c, bias, m, n, k, strideAm, strideAk, strideBk, strideBn, strideCm, strideCn] = p;
  auto [BM, BN, BK, GROUP_M, EPILOGUE, TF32] = t;
  auto [pidM, pidN] = groupedTile(pid, m, n, BM, BN, GROUP_M);
  Value rm = pidM * BM + arange(0, BM), rn = pidN * BN + arange(0, BN), rk = arange(0, BK);
  Precision precision = TF32 ? Precision::TF32 : Precision::IEEE;
  Value acc = for_range(0, k, BK, zeros({BM, BN}, DType::f32), [&](Value k0, Value acc) {
    Value ks = k0 + rk;
    Value tileA = load(a + col(rm) * strideAm + row(ks) * strideAk, (col(rm) < m) & (row(ks) < k), 0.0f);
    Value tileB = load(b + col(ks) * strideBk + row(rn) * strideBn, (col(ks) < k) & (row(rn) < n), 0.0f);
    return dot(tileA, tileB, acc, precision);
  });
  matmulEpilogue(acc, c, bias, rm, rn, m, n, strideCm, strideCn, EPILOGUE);
}

/// Which tiles a launch uses: exact f32 on CUDA cores, f16/bf16 or TF32 on tensor cores.
enum class MatmulPath { CudaCores, TensorCores, Tf32 };
inline MatmulPath matmulPath(bool halfInputs, bool tf32) {
  return halfInputs ? MatmulPath::TensorCores : tf32 ? MatmulPath::Tf32 : MatmulPath::CudaCores;
}

/// The library tiles of one path, by role: the one table both the declared variants
/// (matmulVariants) and the launch policy (matmulConfig) read, so the policy never picks a
/// tile that no variant compiles.
struct MatmulPathTiles {
  MatmulConfig general;    ///< any strides and sizes: the general specialisations
  bool hasFastest = false; ///< the tiles below exist (unitOnly: the fastest specialisation)
  MatmulConfig square{};   ///< 128 x 128: grids of a wave of its tiles (cp.async rings)
  bool hasLarge = false;   ///< f16/bf16: `large` for grids of a wave of its tiles
  MatmulConfig large{};
  MatmulConfig small{}; ///< grids smaller than a wave of `square` tiles
};
inline MatmulPathTiles matmulPathTiles(MatmulPath path) {
  switch (path) {
  case MatmulPath::CudaCores: return {.general = kMatmulCudaCore};
  case MatmulPath::TensorCores:
    return {.general = kMatmulTensorCoreStrided,
            .hasFastest = true,
            .square = kMatmulTensorCore,
            .hasLarge = true,
            .large = kMatmulTensorCoreLarge,
            .small = kMatmulTensorCoreSmall};
  case MatmulPath::Tf32:
    return {.general = kMatmulTensorCoreStrided,
            .hasFastest = true,
            .square = kMatmulTf32,
            .small = kMatmulTensorCoreSmall};
  }
  return {.general = kMatmulCudaCore};
}

/// The library tiles of Matmul and BatchedMatmul for every epilogue: f16/bf16
/// (`halfInputs`) on tensor cores; f32 exact on CUDA cores, and f32 with TF32 inputs on
/// tensor cores (mma.sync m16n8k8) with the same tiles as f16. Order (the AOT files number
/// the variants): per epilogue and tf32, square, large, small, then general.
inline std::vector<Variant> matmulVariants(bool halfInputs) {
  std::vector<Variant> v;
  for (int epilogue = 0; epilogue < 3; ++epilogue)
    for (int tf32 = 0; tf32 < (halfInputs ? 1 : 2); ++tf32) {
      const MatmulPathTiles t = matmulPathTiles(matmulPath(halfInputs, tf32));
      auto declare = [&](const MatmulConfig &c, bool unitOnly) {
        v.push_back({{c.bm, c.bn, c.bk, kMatmulGroupM, epilogue, tf32}, c.numWarps, unitOnly, c.numStages});
      };
      if (t.hasFastest) {
        declare(t.square, /*unitOnly=*/true);
        if (t.hasLarge) declare(t.large, /*unitOnly=*/true);
        declare(t.small, /*unitOnly=*/true);
      }
      declare(t.general, /*unitOnly=*/false);
    }
  return v;
}

/// The launch checks and tile choice of Matmul and BatchedMatmul for `problems` problems
/// like `p` (m, n > 0). `aligned`: the facts beyond one problem's arguments that the
/// fastest specialisation assumes (BatchedMatmul: its batch strides 16-divisible).
/// `config` (bench/'s sweep, the autotuner) must be one of the variants' tiles.
inline MatmulConfig matmulConfig(const char *name, MatmulPath path, const MatmulProblem &p, int64_t problems,
                                 bool aligned, const MatmulConfig *config) {
  const MatmulPathTiles tiles = matmulPathTiles(path);
  const bool fastest = tiles.hasFastest && matmulFastestFacts(p, aligned);
  // A tile "fills" a wave from 7/8 of the SMs on: 512 x 4096 and 256 x 8192 outputs (128
  // tiles of 128 x 128) took the 64 x 64 tile at the full-wave threshold and ran at 47% of
  // cuBLAS (bench/NOTES.md).
  auto fillsWave = [&](const MatmulConfig &t) {
    return problems * ceilDiv(p.m, t.bm) * ceilDiv(p.n, t.bn) * 8 >= kMatmulWaveTiles * 7;
  };
  const MatmulConfig cfg = config                                     ? *config
                           : !fastest                                 ? tiles.general
                           : !fillsWave(tiles.square)                 ? tiles.small
                           : tiles.hasLarge && fillsWave(tiles.large) ? tiles.large
                                                                      : tiles.square;
  // Masked-off lanes still form addresses up to the tile edge: bound those.
  int64_t mEdge = ceilDiv(p.m, cfg.bm) * cfg.bm, nEdge = ceilDiv(p.n, cfg.bn) * cfg.bn,
          kEdge = ceilDiv(p.k, cfg.bk) * cfg.bk;
  if ((mEdge - 1) * p.strideAm + (kEdge - 1) * p.strideAk > kMaxI32 ||
      (kEdge - 1) * p.strideBk + (nEdge - 1) * p.strideBn > kMaxI32 ||
      (mEdge - 1) * p.strideCm + (nEdge - 1) * p.strideCn > kMaxI32)
    fail(name,
         "m, n, k = " + num(p.m) + ", " + num(p.n) + ", " + num(p.k) + " with these strides exceed int32 indexing");
  return cfg;
}
} // namespace detail

/// C[M, N] = A[M, K] · B[K, N] (+ bias[N]) (then relu), f32 C, any strides (a transposed
/// operand is a stride swap), ragged M, N, K masked. One BM x BN tile of C per program,
/// programs ordered in groups of GROUP_M tile rows so that neighbouring programs share
/// A and B tiles in L2 (Triton tutorial 03). T is float (Const TF32 = 1: TF32 inputs),
/// tile::f16 or tile::bf16 (f32 accumulation). Grid: cdiv(M, BM) * cdiv(N, BN).
template <class T> struct Matmul {
  static constexpr const char *name = std::is_same_v<T, float> ? "matmul_f32"
                                      : std::is_same_v<T, f16> ? "matmul_f16"
                                                               : "matmul_bf16";
  static constexpr auto body = [](Ptr<T> a, Ptr<T> b, Ptr<float> c, Ptr<float> bias, I32 m, I32 n, I32 k, I32 strideAm,
                                  I32 strideAk, I32 strideBk, I32 strideBn, I32 strideCm, I32 strideCn, Const<int> BM,
                                  Const<int> BN, Const<int> BK, Const<int> GROUP_M, Const<int> EPILOGUE,
                                  Const<int> TF32) {
    detail::matmulProgram(program_id(0),
                          {a, b, c, bias, m, n, k, strideAm, strideAk, strideBk, strideBn, strideCm, strideCn},
                          {BM, BN, BK, GROUP_M, EPILOGUE, TF32});
  };
  static constexpr std::array params{"a",        "b",        "c",        "bias",     "m",        "n",        "k",
                                     "strideAm", "strideAk", "strideBk", "strideBn", "strideCm", "strideCn", "BM",
                                     "BN",       "BK",       "GROUP_M",  "EPILOGUE", "TF32"};

  // Row-major A, B and C have unit inner strides: variants specialised on that make the
  // tile loads 16-byte vectors (and cp.async copies); other strides get the general code.
  static constexpr std::array unitParams{"strideAk", "strideBn", "strideCn"};

  static constexpr bool kTensorCores = !std::is_same_v<T, float>;

  static std::vector<Variant> variants() {
    std::vector<Variant> v = detail::matmulVariants(kTensorCores);
    if (std::is_same_v<T, f16>) // bench/'s tile sweep
      for (const MatmulConfig &o : kMatmulTensorCoreSweep)
        v.push_back({{o.bm, o.bn, o.bk, kMatmulGroupM, 0, 0}, o.numWarps, /*unitOnly=*/true, o.numStages});
    return v;
  }

  /// C = A·B (+ bias) (relu) with element strides; p.tf32 (float only): TF32 tensor-core
  /// inputs instead of exact FMA. m or n == 0 launches nothing (k == 0 would leave C
  /// unwritten: rejected). `config`: one of variants()' tiles instead of the policy's.
  static void launch(Launcher &l, const MatmulProblem &p, CUstream stream = nullptr,
                     const MatmulConfig *config = nullptr) {
    detail::checkMatmulArgs(name, kTensorCores, p);
    if (p.m == 0 || p.n == 0) return;
    if constexpr (!kTensorCores) {
      // TF32 with B given K-major (Bᵀ row-major, as x·Wᵀ): the descriptor kernel, wgmma on sm_90a.
      using Tma = MatmulTma<T, float, MatmulB::Transposed>;
      const MatmulTmaProblem bt{.a = p.a,
                                .b = p.b,
                                .c = p.c,
                                .bias = p.bias,
                                .m = p.m,
                                .n = p.n,
                                .k = p.k,
                                .lda = p.strideAm,
                                .ldb = p.strideBn,
                                .ldc = p.strideCm,
                                .epilogue = p.epilogue};
      if (p.tf32 && !config && p.strideAk == 1 && p.strideBk == 1 && p.strideCn == 1 &&
          Tma::whyNotDescribable(bt).empty()) {
        Tma::launch(l, bt, stream);
        return;
      }
    }
    const MatmulConfig cfg = detail::matmulConfig(name, detail::matmulPath(kTensorCores, p.tf32), p, 1, true, config);
    int64_t grid = ceilDiv(p.m, cfg.bm) * ceilDiv(p.n, cfg.bn);
    if constexpr (kTensorCores) {
      // Row-major operands that TMA can describe: the descriptor kernel (TMA copies on sm_90a).
      using Tma = MatmulTma<T, float>;
      const MatmulTmaProblem rows{.a = p.a,
                                  .b = p.b,
                                  .c = p.c,
                                  .bias = p.bias,
                                  .m = p.m,
                                  .n = p.n,
                                  .k = p.k,
                                  .lda = p.strideAm,
                                  .ldb = p.strideBk,
                                  .ldc = p.strideCm,
                                  .epilogue = p.epilogue};
      if (p.strideAk == 1 && p.strideBn == 1 && p.strideCn == 1 && Tma::hasTile(cfg) &&
          Tma::whyNotDescribable(rows).empty()) {
        Tma::launchTile(l, cfg, rows, stream);
        return;
      }
    }
    launchKernel<Matmul>(l, {grid}, {cfg.numWarps, cfg.numStages}, stream, p.a, p.b, p.c, p.bias, int32_t(p.m),
                         int32_t(p.n), int32_t(p.k), int32_t(p.strideAm), int32_t(p.strideAk), int32_t(p.strideBk),
                         int32_t(p.strideBn), int32_t(p.strideCm), int32_t(p.strideCn), cfg.bm, cfg.bn, cfg.bk,
                         kMatmulGroupM, int(p.epilogue), p.tf32 ? 1 : 0);
  }
};

using MatmulF32 = Matmul<float>;
using MatmulF16 = Matmul<f16>;
using MatmulBF16 = Matmul<bf16>;
TILE_LIBRARY_KERNEL(MatmulF32);
TILE_LIBRARY_KERNEL(MatmulF16);
TILE_LIBRARY_KERNEL(MatmulBF16);

template <class T> const DslKernel<Matmul<T>> &matmulKernel() { return dslKernel<Matmul<T>>(); }

} // namespace tile::kernels
