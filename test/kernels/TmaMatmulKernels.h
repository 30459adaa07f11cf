//===- TmaMatmulKernels.h - the descriptor matmul over its buffers --------===//
// For the differential bundle (tools/diff-bundle), whose descriptor arguments point into
// earlier pointer arguments: the library's MatmulTma tile with its buffers passed too. Apart
// from TestKernels.h because it needs the kernel library's headers.
#pragma once

#include "tile/kernels/Matmul.h"

namespace tile::testing {

/// The library's descriptor matmul tile (kernels/MatmulTma.h: matmulTmaTile; SCHEDULE 0: on a
/// grid of tiles, 1: persistent, 2: a grid of tiles whose K loops are warp-specialised, 3:
/// persistent and warp-specialised) over
/// buffers passed beside their descriptors, so that the differential bundle, whose descriptors
/// point into earlier pointer arguments, can replay it: B row-major or transposed (`BT`), f16
/// or TF32 inputs, C in f16 or f32.
template <class T, class C, bool BT> inline const auto &tmaMatmulOverBuffersKernel() {
  constexpr bool tf32 = std::is_same_v<T, float>;
  static const auto k =
      tile::kernel(tf32 ? "tma_matmul_tf32_bt"
                   : BT ? "tma_matmul_f16_bt"
                        : "tma_matmul_f16",
                   [](Ptr<T> aBuffer, Ptr<T> bBuffer, Ptr<C> cBuffer, Ptr<float> bias, TensorDesc<T, 2> a,
                      TensorDesc<T, 2> b, TensorDesc<C, 2> c, I32 m, I32 n, I32 kk, Const<int> BM, Const<int> BN,
                      Const<int> BK, Const<int> SCHEDULE, Const<int> EPILOGUE) {
                     (void)aBuffer, (void)bBuffer, (void)cBuffer;
                     auto one = [&](Value t) {
                       auto [pidM, pidN] = kernels::detail::groupedTile(t, m, n, BM, BN, 4);
                       kernels::detail::matmulTmaTile(a, b, c, bias, n, kk, pidM * BM, pidN * BN, BM, BN, BK, EPILOGUE,
                                                      BT, tf32, SCHEDULE.value() >= 2);
                     };
                     if (SCHEDULE.value() % 2 == 0) return one(program_id(0));
                     for_range(program_id(0), ((m + (BM - 1)) / BM) * ((n + (BN - 1)) / BN), num_programs(0), one);
                   });
  return k;
}

} // namespace tile::testing
