//===- BatchedMatmul.h - C[b] = A[b]·B[b] (+ bias[b]) (relu), strided batches -===//
#pragma once

#include "tile/kernels/Matmul.h"

namespace tile::kernels {

/// `batch` problems like `matrix`, problem b's operands `b·stride?b` elements after problem 0's
/// (matrix.a, .b, .c and .bias point at problem 0).
struct BatchedMatmulProblem {
  MatmulProblem matrix;
  int64_t batch = 0;
  int64_t strideAb = 0, strideBb = 0, strideCb = 0, strideBiasb = 0;
};

/// Strided-batched matmul (torch.bmm, cublasGemmStridedBatchedEx):
///   C[b][i, j] = Σ_k A[b][i, k] · B[b][k, j] (+ bias[b][j]) (then relu),  b < batch,
/// where element (i, k) of A[b] is a[b * strideAb + i * strideAm + k * strideAk], and
/// likewise for B, C and bias (bias[b][j] = bias[b * strideBiasb + j]). Any strides >= 0:
/// a transposed operand is a stride swap, a batch stride of 0 broadcasts one matrix (or
/// one bias row) over the batch. The C matrices must not overlap (strideCb = 0 is
/// rejected; other overlaps are the caller's to avoid). f32 C; T as Matmul's (float: exact FMA or TF32 inputs;
/// f16/bf16: tensor cores, f32 accumulation).
/// Grid: (cdiv(M, BM) * cdiv(N, BN), batch): program_id(0) is Matmul's grouped tile
/// order within one problem, program_id(1) the batch index (as in PyTorch Inductor's bmm
/// template), so a problem's tiles run together and share its A and B in L2. Each
/// problem is indexed in int32 (as Matmul); the batch offsets are int64.
template <class T> struct BatchedMatmul {
  static constexpr const char *name = std::is_same_v<T, float> ? "batched_matmul_f32"
                                      : std::is_same_v<T, f16> ? "batched_matmul_f16"
                                                               : "batched_matmul_bf16";
  static constexpr auto body = [](Ptr<T> a, Ptr<T> b, Ptr<float> c, Ptr<float> bias, I32 m, I32 n, I32 k, I64 strideAb,
                                  I32 strideAm, I32 strideAk, I64 strideBb, I32 strideBk, I32 strideBn, I64 strideCb,
                                  I32 strideCm, I32 strideCn, I64 strideBiasb, Const<int> BM, Const<int> BN,
                                  Const<int> BK, Const<int> GROUP_M, Const<int> EPILOGUE, Const<int> TF32) {
    Value pid = program_id(0), batch = cast(program_id(1), DType::i64);
    Value aBatch = a + batch * strideAb, bBatch = b + batch * strideBb, cBatch = c + batch * strideCb;
    Value biasBatch = bias + batch * strideBiasb;
    detail::matmulProgram(
        pid, {aBatch, bBatch, cBatch, biasBatch, m, n, k, strideAm, strideAk, strideBk, strideBn, strideCm, strideCn},
        {BM, BN, BK, GROUP_M, EPILOGUE, TF32});
  };
  static constexpr std::array params{"a",        "b",        "c",        "bias",     "m",           "n",
                                     "k",        "strideAb", "strideAm", "strideAk", "strideBb",    "strideBk",
                                     "strideBn", "strideCb", "strideCm", "strideCn", "strideBiasb", "BM",
                                     "BN",       "BK",       "GROUP_M",  "EPILOGUE", "TF32"};
  static constexpr std::array unitParams{"strideAk", "strideBn", "strideCn"};

  static constexpr bool kTensorCores = !std::is_same_v<T, float>;
  /// The grid's y extent (CUDA's limit): the most problems one launch takes.
  static constexpr int64_t kMaxBatch = 65535;
  /// Batch strides are bounded so that every batch offset fits int64 in bytes.
  static constexpr int64_t kMaxBatchStride = int64_t(1) << 44;

  static std::vector<Variant> variants() { return detail::matmulVariants(kTensorCores); }

  /// C[b] = A[b]·B[b] (+ bias[b]) (relu) for b < batch, element strides as above; tf32
  /// (float only): TF32 tensor-core inputs. batch, m or n == 0 launches nothing; k == 0 is
  /// rejected (C would stay unwritten). `bias` and `strideBiasb` are ignored without a
  /// bias epilogue.
  static void launch(Launcher &l, const BatchedMatmulProblem &problem, CUstream stream = nullptr,
                     const MatmulConfig *config = nullptr) {
    BatchedMatmulProblem q = problem;
    MatmulProblem &p = q.matrix;
    checkRange(name, "batch", q.batch, 0, kMaxBatch);
    detail::checkMatmulArgs(name, kTensorCores, p);
    if (p.epilogue == MatmulEpilogue::None) p.bias = p.c, q.strideBiasb = 0; // unused: no fact of it may cost a variant
    for (auto [s, what] : {std::pair{q.strideAb, "strideAb"},
                           {q.strideBb, "strideBb"},
                           {q.strideCb, "strideCb"},
                           {q.strideBiasb, "strideBiasb"}})
      checkRange(name, what, s, 0, kMaxBatchStride);
    if (q.strideCb == 0 && q.batch > 1)
      fail(name, "strideCb = 0 with batch = " + num(q.batch) + ": the problems would write one C");
    if (q.batch == 0 || p.m == 0 || p.n == 0) return;
    auto div16 = [](int64_t v) { return v % 16 == 0; };
    const bool aligned = div16(q.strideAb) && div16(q.strideBb) && div16(q.strideCb) && div16(q.strideBiasb);
    const MatmulConfig cfg =
        detail::matmulConfig(name, detail::matmulPath(kTensorCores, p.tf32), p, q.batch, aligned, config);
    launchKernel<BatchedMatmul>(
        l, {ceilDiv(p.m, cfg.bm) * ceilDiv(p.n, cfg.bn), q.batch}, {cfg.numWarps, cfg.numStages}, stream, p.a, p.b, p.c,
        p.bias, int32_t(p.m), int32_t(p.n), int32_t(p.k), q.strideAb, int32_t(p.strideAm), int32_t(p.strideAk),
        q.strideBb, int32_t(p.strideBk), int32_t(p.strideBn), q.strideCb, int32_t(p.strideCm), int32_t(p.strideCn),
        q.strideBiasb, cfg.bm, cfg.bn, cfg.bk, kMatmulGroupM, int(p.epilogue), p.tf32 ? 1 : 0);
  }
};

using BatchedMatmulF32 = BatchedMatmul<float>;
using BatchedMatmulF16 = BatchedMatmul<f16>;
using BatchedMatmulBF16 = BatchedMatmul<bf16>;
TILE_LIBRARY_KERNEL(BatchedMatmulF32);
TILE_LIBRARY_KERNEL(BatchedMatmulF16);
TILE_LIBRARY_KERNEL(BatchedMatmulBF16);

} // namespace tile::kernels
