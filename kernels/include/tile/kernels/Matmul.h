//===- Matmul.h - C = A·B (+ bias, relu) in the DSL ------------------------===//
#pragma once

#include "tile/tile.h"

namespace tile::kernels {

/// Epilogues fused into the matmul's store.
enum class MatmulEpilogue : int { None = 0, Bias = 1, BiasRelu = 2 };

/// C[M, N] = A[M, K] · B[K, N] (+ bias[N]) (then relu), f32 C, any strides (a transposed
/// operand is a stride swap), ragged M, N, K masked. One BM x BN tile of C per program,
/// programs ordered in groups of GROUP_M tile rows so that neighbouring programs share
/// A and B tiles in L2 (Triton tutorial 03). T is float (Const TF32 = 1: TF32 inputs),
/// tile::f16 or tile::bf16 (f32 accumulation). Grid: cdiv(M, BM) * cdiv(N, BN).
template <class T> const auto &matmulKernel() {
  static const auto k = tile::kernel(
      std::is_same_v<T, float> ? "matmul_f32" : std::is_same_v<T, f16> ? "matmul_f16" : "matmul_bf16",
      [](Ptr<T> a, Ptr<T> b, Ptr<float> c, Ptr<float> bias, I32 m, I32 n, I32 k, I32 strideAm, I32 strideAk,
         I32 strideBk, I32 strideBn, I32 strideCm, I32 strideCn, Const<int> BM, Const<int> BN, Const<int> BK,
         Const<int> GROUP_M, Const<int> EPILOGUE, Const<int> TF32) {
        // Grouped ordering: program id -> (tile row, tile column).
        Value pid = program_id(0);
        Value tilesM = (m + (BM - 1)) / BM, tilesN = (n + (BN - 1)) / BN;
        Value perGroup = tilesN * GROUP_M;
        Value firstM = (pid / perGroup) * GROUP_M;
        Value groupRows = minimum(tilesM - firstM, GROUP_M);
        Value pidM = firstM + (pid % perGroup) % groupRows;
        Value pidN = (pid % perGroup) / groupRows;

        Value rm = pidM * BM + arange(0, BM), rn = pidN * BN + arange(0, BN), rk = arange(0, BK);
        Precision precision = TF32 ? Precision::TF32 : Precision::IEEE;
        Value acc = for_range(0, k, BK, zeros({BM, BN}, DType::f32), [&](Value k0, Value acc) {
          Value ks = k0 + rk;
          Value tileA = load(a + col(rm) * strideAm + row(ks) * strideAk, (col(rm) < m) & (row(ks) < k), 0.0f);
          Value tileB = load(b + col(ks) * strideBk + row(rn) * strideBn, (col(ks) < k) & (row(rn) < n), 0.0f);
          return dot(tileA, tileB, acc, precision);
        });
        if (EPILOGUE != int(MatmulEpilogue::None)) acc = acc + row(load(bias + rn, rn < n, 0.0f));
        if (EPILOGUE == int(MatmulEpilogue::BiasRelu)) acc = maximum(acc, 0.0f);
        store(c + col(rm) * strideCm + row(rn) * strideCn, acc, (col(rm) < m) & (row(rn) < n));
      });
  return k;
}

} // namespace tile::kernels
