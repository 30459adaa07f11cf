//===- MatmulProblem.h - what the matmul kernels share: problems, tiles, policy ===//
// The problem structs every matmul launcher takes (MatmulProblem: any strides; MatmulTmaProblem:
// row-major operands that tensor descriptors describe), the library's tiles, and the facts and
// checks both Matmul<T> (cp.async / mma.sync) and MatmulTma (TMA / wgmma) decide by, so that the
// launch policy and the autotuner's candidates (MatmulAutotune.h) read them from one place.
#pragma once

#include "tile/kernels/Declare.h"

#include <utility>

namespace tile::kernels {

/// Epilogues fused into the matmul's store.
enum class MatmulEpilogue : int { None = 0, Bias = 1, BiasRelu = 2 };

/// One product C[m, n] = A[m, k]·B[k, n] (+ bias[n]) (then relu), f32 C, in element strides:
/// A(i, j) is a[i·strideAm + j·strideAk], likewise B and C (a transposed operand is a stride
/// swap). Call sites name the fields:
///   Matmul<f16>::launch(l, {.a = a, .b = b, .c = c, .m = m, .n = n, .k = k, .strideAm = k,
///                           .strideAk = 1, .strideBk = n, .strideBn = 1, .strideCm = n, .strideCn = 1});
struct MatmulProblem {
  Address a, b, c;
  Address bias = nullptr; ///< [n], read by the bias epilogues only
  int64_t m = 0, n = 0, k = 0;
  int64_t strideAm = 0, strideAk = 0, strideBk = 0, strideBn = 0, strideCm = 0, strideCn = 0;
  MatmulEpilogue epilogue = MatmulEpilogue::None;
  bool tf32 = false; ///< float inputs multiplied as TF32 on tensor cores instead of exact FMA
};

/// How MatmulTma's operand b lies in memory.
enum class MatmulB {
  RowMajor,   ///< b [K, N], N contiguous: wgmma reads it N-major (16-bit inputs only)
  Transposed, ///< bᵀ [N, K], K contiguous, as nn.Linear's weight: wgmma reads it K-major,
              ///< the only order it reads tf32 in
};

/// One product for MatmulTma / MatmulTmaPersistent: row-major a [m, k], b [k, n] (bᵀ [n, k] for
/// MatmulB::Transposed) and c [m, n], rows lda, ldb and ldc elements apart.
struct MatmulTmaProblem {
  Address a, b, c;
  Address bias = nullptr; ///< [n], read by the bias epilogues only
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;
  MatmulEpilogue epilogue = MatmulEpilogue::None;
};

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

/// The facts the fastest specialisation of Matmul (and BatchedMatmul) was compiled for, and
/// so whether its large unit-stride-only tiles may run: unit inner strides, 16-divisible
/// shapes, outer strides and addresses. `aligned`: the facts beyond one problem's arguments
/// (BatchedMatmul: its batch strides 16-divisible). The launch policy (matmulConfig) and the
/// autotuner's candidate set (MatmulAutotune.h) both decide by this.
inline bool matmulFastestFacts(const MatmulProblem &p, bool aligned = true) {
  auto div16 = [](int64_t v) { return v % 16 == 0; };
  return aligned && p.strideAk == 1 && p.strideBn == 1 && p.strideCn == 1 && div16(p.m) && div16(p.n) && div16(p.k) &&
         div16(p.strideAm) && div16(p.strideBk) && div16(p.strideCm) && div16(int64_t(p.a.ptr())) &&
         div16(int64_t(p.b.ptr())) && div16(int64_t(p.c.ptr())) && div16(int64_t(p.bias.ptr()));
}

/// The argument checks of every matmul launcher (`tensorCores`: f16/bf16 inputs, for which
/// tf32 means nothing).
inline void checkMatmulArgs(const char *name, bool tensorCores, const MatmulProblem &p) {
  checkRange(name, "m", p.m, 0, kMaxI32);
  checkRange(name, "n", p.n, 0, kMaxI32);
  checkRange(name, "k", p.k, 1, kMaxI32);
  for (auto [s, what] : {std::pair{p.strideAm, "strideAm"},
                         {p.strideAk, "strideAk"},
                         {p.strideBk, "strideBk"},
                         {p.strideBn, "strideBn"},
                         {p.strideCm, "strideCm"},
                         {p.strideCn, "strideCn"}})
    checkRange(name, what, s, 0, kMaxI32);
  if (p.tf32 && tensorCores) fail(name, "tf32 applies to float inputs only");
}

/// A descriptor problem as element strides (unit inner strides, ldb as B's row stride): what
/// checkMatmulArgs checks.
inline MatmulProblem stridedProblem(const MatmulTmaProblem &p) {
  return {.a = p.a,
          .b = p.b,
          .c = p.c,
          .bias = p.bias,
          .m = p.m,
          .n = p.n,
          .k = p.k,
          .strideAm = p.lda,
          .strideAk = 1,
          .strideBk = p.ldb,
          .strideBn = 1,
          .strideCm = p.ldc,
          .strideCn = 1,
          .epilogue = p.epilogue};
}
} // namespace detail

} // namespace tile::kernels
