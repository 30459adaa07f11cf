//===- Matmul.h - C = A·B (+ bias, relu) ------------------------------------===//
#pragma once

#include "tile/kernels/Declare.h"

#include <type_traits>

namespace tile::kernels {

/// Epilogues fused into the matmul's store.
enum class MatmulEpilogue : int { None = 0, Bias = 1, BiasRelu = 2 };

/// Matmul tiles: f16/bf16 and TF32 on tensor cores (mma.sync), exact f32 on CUDA cores (FMA).
struct MatmulConfig {
  int bm, bn, bk, numWarps;
  int numStages = 0; ///< pipeline buffers; 0 = the compiler's default (4 for wgmma rings, else 3)
  /// MatmulTma: the K loop on a producer warp and numWarps consumer warps (LoopOptions).
  bool warpSpecialize = false;
};
// Tensor cores: operands staged by cp.async into 3-stage swizzled rings, read with ldmatrix
// (unit inner strides only: other strides load element by element, and this tile's
// per-element addresses would spill).
constexpr MatmulConfig kMatmulTensorCore{128, 128, 32, 4}; // best of bench/'s sweep on an H200 (bench/NOTES.md)
// Grids of a wave or more of 128 x 256 tiles: on sm_90a two warpgroups of m64n256k16 wgmma,
// rings 4 deep (192 KB), filled by TMA where the operands are descriptors (MatmulTma): 641.6
// TFLOP/s at 4096^3 f16 on an H200, against 518.6 for 128 x 256 x 32 with 6 stages, the
// previous choice (bench/NOTES.md).
constexpr MatmulConfig kMatmulTensorCoreLarge{128, 256, 64, 8, 4};
// For grids smaller than a wave of 128 x 128 tiles: more programs from smaller tiles.
constexpr MatmulConfig kMatmulTensorCoreSmall{64, 64, 64, 4};
constexpr int64_t kMatmulWaveTiles = 132; // an H100/H200's SMs: one 128 x 128 tile each
// Tensor cores with other strides (a transposed operand): no cp.async, a smaller tile.
constexpr MatmulConfig kMatmulTensorCoreStrided{64, 64, 32, 4};
// Other f16 tiles compiled ahead of time for bench/'s sweep (epilogue None only).
// On sm_90a all are wgmma tiles (every warpgroup gets whole 64-row slabs); the last ones
// vary the pipeline depth (default: 4 buffers where 4 fit in 200 KB, else 3).
constexpr MatmulConfig kMatmulTensorCoreSweep[] = {
    {128, 128, 32, 8},    {128, 128, 64, 8},    {128, 128, 64, 4},    {128, 256, 32, 8},    {64, 128, 64, 4},
    {128, 256, 64, 8},    {256, 128, 64, 8},    {128, 128, 32, 4, 3}, {128, 128, 32, 4, 6}, {128, 128, 64, 4, 3},
    {128, 256, 32, 8, 3}, {128, 256, 64, 8, 3}, {256, 128, 64, 8, 3}};
constexpr MatmulConfig kMatmulCudaCore{32, 32, 8, 4};
// TF32's operands are twice the bytes of f16's: the large tile on 8 warps (on 4 its
// 128 accumulators per thread spill; ptxas sm_90).
constexpr MatmulConfig kMatmulTf32{128, 128, 32, 8};
constexpr int kMatmulGroupM = 8;

namespace detail {
/// Grouped ordering (Triton tutorial 03): program `pid` -> (tile row, tile column), programs
/// ordered in groups of GROUP_M tile rows so that neighbours share A and B tiles in L2.
inline std::pair<Value, Value> groupedTile(Value pid, Value m, Value n, int BM, int BN, int GROUP_M) {
  Value tilesM = (m + (BM - 1)) / BM, tilesN = (n + (BN - 1)) / BN;
  Value perGroup = tilesN * GROUP_M;
  Value firstM = (pid / perGroup) * GROUP_M;
  Value groupRows = minimum(tilesM - firstM, GROUP_M);
  return {firstM + (pid % perGroup) % groupRows, (pid % perGroup) / groupRows};
}

/// The fused epilogue of a C tile (rows rm, columns rn): + bias[rn], relu, stored masked.
inline void matmulEpilogue(Value acc, Value c, Value bias, Value rm, Value rn, Value m, Value n, Operand strideCm,
                           Operand strideCn, int EPILOGUE) {
  if (EPILOGUE != int(MatmulEpilogue::None)) acc = acc + row(load(bias + rn, rn < n, 0.0f));
  if (EPILOGUE == int(MatmulEpilogue::BiasRelu)) acc = maximum(acc, 0.0f);
  store(c + col(rm) * strideCm + row(rn) * strideCn, acc, (col(rm) < m) & (row(rn) < n));
}

/// The program of Matmul and BatchedMatmul: one BM x BN tile of C = A·B (+ bias) (relu)
/// for program `pid`, programs ordered in groups of GROUP_M tile rows; a, b, c and bias
/// point at one problem's matrices. Traced where a kernel body calls it.
inline void matmulProgram(Value pid, Value a, Value b, Value c, Value bias, Value m, Value n, Value k, Value strideAm,
                          Value strideAk, Value strideBk, Value strideBn, Value strideCm, Value strideCn, int BM,
                          int BN, int BK, int GROUP_M, int EPILOGUE, int TF32) {
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

/// The library tiles of Matmul and BatchedMatmul for every epilogue: f16/bf16
/// (`halfInputs`) on tensor cores; f32 exact on CUDA cores, and f32 with TF32 inputs on
/// tensor cores (mma.sync m16n8k8) with the same tiles as f16.
inline std::vector<Variant> matmulVariants(bool halfInputs) {
  std::vector<Variant> v;
  for (int epilogue = 0; epilogue < 3; ++epilogue)
    for (int tf32 = 0; tf32 < (halfInputs ? 1 : 2); ++tf32) {
      if (!halfInputs && !tf32) {
        const MatmulConfig c = kMatmulCudaCore;
        v.push_back({{c.bm, c.bn, c.bk, kMatmulGroupM, epilogue, 0}, c.numWarps});
        continue;
      }
      const MatmulConfig big = tf32 ? kMatmulTf32 : kMatmulTensorCore, small = kMatmulTensorCoreSmall,
                         s = kMatmulTensorCoreStrided;
      // The large tiles only for the fastest specialisation (unitOnly): cp.async rings.
      v.push_back({{big.bm, big.bn, big.bk, kMatmulGroupM, epilogue, tf32}, big.numWarps, /*unitOnly=*/true});
      if (!tf32) {
        const MatmulConfig l = kMatmulTensorCoreLarge;
        v.push_back({{l.bm, l.bn, l.bk, kMatmulGroupM, epilogue, 0}, l.numWarps, /*unitOnly=*/true, l.numStages});
      }
      v.push_back({{small.bm, small.bn, small.bk, kMatmulGroupM, epilogue, tf32}, small.numWarps, /*unitOnly=*/true});
      v.push_back({{s.bm, s.bn, s.bk, kMatmulGroupM, epilogue, tf32}, s.numWarps});
    }
  return v;
}

/// The launch checks and tile choice of Matmul and BatchedMatmul for `problems` problems
/// of m x n x k (m, n > 0). `aligned`: the facts beyond one problem's arguments that the
/// fastest specialisation assumes (BatchedMatmul: its batch strides 16-divisible).
/// Which tiles a launch uses: exact f32 on CUDA cores, f16/bf16 or TF32 on tensor cores.
enum class MatmulPath { CudaCores, TensorCores, Tf32 };
inline MatmulPath matmulPath(bool halfInputs, bool tf32) {
  return halfInputs ? MatmulPath::TensorCores : tf32 ? MatmulPath::Tf32 : MatmulPath::CudaCores;
}

inline MatmulConfig matmulConfig(const char *name, MatmulPath path, Address a, Address b, Address c, Address bias,
                                 int64_t m, int64_t n, int64_t k, int64_t strideAm, int64_t strideAk, int64_t strideBk,
                                 int64_t strideBn, int64_t strideCm, int64_t strideCn, int64_t problems, bool aligned,
                                 const MatmulConfig *config) {
  // `config` (bench/'s sweep) must be one of variants()' tiles, else no AOT variant has it.
  // The large tensor-core tiles exist only for the fastest specialisation (unitOnly).
  auto div16 = [](int64_t v) { return v % 16 == 0; };
  const bool fastest = aligned && strideAk == 1 && strideBn == 1 && strideCn == 1 && div16(m) && div16(n) &&
                       div16(k) && div16(strideAm) && div16(strideBk) && div16(strideCm) && div16(int64_t(a.ptr())) &&
                       div16(int64_t(b.ptr())) && div16(int64_t(c.ptr())) && div16(int64_t(bias.ptr()));
  // A tile "fills" a wave from 7/8 of the SMs on: 512 x 4096 and 256 x 8192 outputs (128
  // tiles of 128 x 128) took the 64 x 64 tile at the full-wave threshold and ran at 47% of
  // cuBLAS (bench/NOTES.md).
  auto fillsWave = [&](const MatmulConfig &t) {
    return problems * ceilDiv(m, t.bm) * ceilDiv(n, t.bn) * 8 >= kMatmulWaveTiles * 7;
  };
  const MatmulConfig cfg = config                              ? *config
                           : path == MatmulPath::CudaCores     ? kMatmulCudaCore
                           : !fastest                          ? kMatmulTensorCoreStrided
                           : !fillsWave(kMatmulTensorCore)     ? kMatmulTensorCoreSmall
                           : path == MatmulPath::Tf32          ? kMatmulTf32
                           : fillsWave(kMatmulTensorCoreLarge) ? kMatmulTensorCoreLarge
                                                               : kMatmulTensorCore;
  // Masked-off lanes still form addresses up to the tile edge: bound those.
  int64_t mEdge = ceilDiv(m, cfg.bm) * cfg.bm, nEdge = ceilDiv(n, cfg.bn) * cfg.bn, kEdge = ceilDiv(k, cfg.bk) * cfg.bk;
  if ((mEdge - 1) * strideAm + (kEdge - 1) * strideAk > kMaxI32 ||
      (kEdge - 1) * strideBk + (nEdge - 1) * strideBn > kMaxI32 ||
      (mEdge - 1) * strideCm + (nEdge - 1) * strideCn > kMaxI32)
    fail(name, "m, n, k = " + num(m) + ", " + num(n) + ", " + num(k) + " with these strides exceed int32 indexing");
  return cfg;
}

inline void checkMatmulArgs(const char *name, bool tensorCores, int64_t m, int64_t n, int64_t k, int64_t strideAm,
                            int64_t strideAk, int64_t strideBk, int64_t strideBn, int64_t strideCm, int64_t strideCn,
                            bool tf32) {
  checkRange(name, "m", m, 0, kMaxI32);
  checkRange(name, "n", n, 0, kMaxI32);
  checkRange(name, "k", k, 1, kMaxI32);
  for (auto [s, what] : {std::pair{strideAm, "strideAm"}, {strideAk, "strideAk"}, {strideBk, "strideBk"},
                         {strideBn, "strideBn"}, {strideCm, "strideCm"}, {strideCn, "strideCn"}})
    checkRange(name, what, s, 0, kMaxI32);
  if (tf32 && tensorCores) fail(name, "tf32 applies to float inputs only");
}
} // namespace detail

/// How MatmulTma's operand b lies in memory.
enum class MatmulB {
  RowMajor,   ///< b [K, N], N contiguous: wgmma reads it N-major (16-bit inputs only)
  Transposed, ///< bᵀ [N, K], K contiguous, as nn.Linear's weight: wgmma reads it K-major,
              ///< the only order it reads tf32 in
};
template <class T, class C = float, MatmulB BL = MatmulB::RowMajor> struct MatmulTma;

/// C[M, N] = A[M, K] · B[K, N] (+ bias[N]) (then relu), f32 C, any strides (a transposed
/// operand is a stride swap), ragged M, N, K masked. One BM x BN tile of C per program,
/// programs ordered in groups of GROUP_M tile rows so that neighbouring programs share
/// A and B tiles in L2 (Triton tutorial 03). T is float (Const TF32 = 1: TF32 inputs),
/// tile::f16 or tile::bf16 (f32 accumulation). Grid: cdiv(M, BM) * cdiv(N, BN).
template <class T> struct Matmul {
  static constexpr const char *name =
      std::is_same_v<T, float> ? "matmul_f32" : std::is_same_v<T, f16> ? "matmul_f16" : "matmul_bf16";
  static constexpr auto body = [](Ptr<T> a, Ptr<T> b, Ptr<float> c, Ptr<float> bias, I32 m, I32 n, I32 k, I32 strideAm,
                                  I32 strideAk, I32 strideBk, I32 strideBn, I32 strideCm, I32 strideCn, Const<int> BM,
                                  Const<int> BN, Const<int> BK, Const<int> GROUP_M, Const<int> EPILOGUE,
                                  Const<int> TF32) {
    detail::matmulProgram(program_id(0), a, b, c, bias, m, n, k, strideAm, strideAk, strideBk, strideBn, strideCm,
                          strideCn, BM, BN, BK, GROUP_M, EPILOGUE, TF32);
  };
  static constexpr std::array params{"a",        "b",        "c",        "bias",     "m",  "n",  "k",
                                     "strideAm", "strideAk", "strideBk", "strideBn", "strideCm", "strideCn",
                                     "BM",       "BN",       "BK",       "GROUP_M",  "EPILOGUE", "TF32"};

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

  /// C = A·B (+ bias) (relu) with element strides; tf32 (float only): TF32 tensor-core
  /// inputs instead of exact FMA. m, n or k == 0 launches nothing (k == 0 would leave C
  /// unwritten: rejected).
  static void launch(Launcher &l, Address a, Address b, Address c, Address bias, int64_t m, int64_t n, int64_t k,
                     int64_t strideAm, int64_t strideAk, int64_t strideBk, int64_t strideBn, int64_t strideCm,
                     int64_t strideCn, MatmulEpilogue epilogue = MatmulEpilogue::None, bool tf32 = false,
                     CUstream stream = nullptr, const MatmulConfig *config = nullptr) {
    detail::checkMatmulArgs(name, kTensorCores, m, n, k, strideAm, strideAk, strideBk, strideBn, strideCm, strideCn,
                            tf32);
    if (m == 0 || n == 0) return;
    if constexpr (!kTensorCores) {
      // TF32 with B given K-major (Bᵀ row-major, as x·Wᵀ): the descriptor kernel, wgmma on sm_90a.
      using Tma = MatmulTma<T, float, MatmulB::Transposed>;
      if (tf32 && !config && strideAk == 1 && strideBk == 1 && strideCn == 1 &&
          Tma::whyNotDescribable(a, b, c, m, n, k, strideAm, strideBn, strideCm).empty()) {
        Tma::launch(l, a, b, c, bias, m, n, k, strideAm, strideBn, strideCm, epilogue, stream);
        return;
      }
    }
    const MatmulConfig cfg =
        detail::matmulConfig(name, detail::matmulPath(kTensorCores, tf32), a, b, c, bias, m, n, k, strideAm, strideAk,
                             strideBk, strideBn, strideCm, strideCn, 1, true, config);
    int64_t grid = ceilDiv(m, cfg.bm) * ceilDiv(n, cfg.bn);
    if constexpr (kTensorCores) {
      // Row-major operands that TMA can describe: the descriptor kernel (TMA copies on sm_90a).
      if (strideAk == 1 && strideBn == 1 && strideCn == 1 && MatmulTma<T, float>::hasTile(cfg) &&
          MatmulTma<T, float>::whyNotDescribable(a, b, c, m, n, k, strideAm, strideBk, strideCm).empty()) {
        MatmulTma<T, float>::launchTile(l, cfg, a, b, c, bias, m, n, k, strideAm, strideBk, strideCm, epilogue, stream);
        return;
      }
    }
    launchKernel<Matmul>(l, {grid}, {cfg.numWarps, cfg.numStages}, stream, a, b, c, bias, int32_t(m), int32_t(n), int32_t(k),
                         int32_t(strideAm), int32_t(strideAk), int32_t(strideBk), int32_t(strideBn), int32_t(strideCm),
                         int32_t(strideCn), cfg.bm, cfg.bn, cfg.bk, kMatmulGroupM, int(epilogue), tf32 ? 1 : 0);
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

// After Matmul: MatmulTma's launch shares its checks, Matmul::launch runs MatmulTma.
#include "tile/kernels/MatmulTma.h"
