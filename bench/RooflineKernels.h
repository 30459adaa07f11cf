//===- RooflineKernels.h - DSL kernels that measure the device's ceilings -===//
// bench_train_step's floor needs this device's FP32 FMA rate, its TF32 tensor-core rate and
// the cost of one node of a replayed CUDA graph, measured in the same run. These kernels do
// nothing else: chains of `dot` on operands loaded once (FFMA for f32, mma.sync for TF32),
// kept alive by one store per element. What they reach is what a DSL kernel can reach: the
// dot operands' layout conversion stays in the loop, amortised over UNROLL dots. Compiled ahead of time like the library (gen_bench_kernels_aot.cpp).
#pragma once

#include "tile/tile.h"

namespace tile::bench {

/// Nothing but a launch: the per-node cost of a graph of them.
inline const auto &roofEmptyKernel() {
  static const auto k = tile::kernel("roof_empty", [](Ptr<float>) {});
  return k;
}

/// acc = dot(p, q, acc), UNROLL times per iteration, p and q loaded once: chains of FFMA per
/// thread in f32 (no tensor core multiplies f32 exactly; the DSL has no fused a * b + c of its
/// own, `dot` is how a kernel gets FFMA), of mma.sync per warp with TF32 = 1. out gets acc
/// (BM x BN per program).
inline const auto &roofDotKernel() {
  static const auto k = tile::kernel("roof_dot", [](Ptr<float> in, Ptr<float> out, I32 iters, Const<int> BM,
                                                    Const<int> BN, Const<int> BK, Const<int> UNROLL, Const<int> TF32) {
    Value rm = col(arange(0, BM)), rn = row(arange(0, BN)), rk = arange(0, BK);
    Value p = load(in + rm * BK + row(rk));
    Value q = load(in + col(rk) * BN + rn);
    const Precision precision = TF32.value() ? Precision::TF32 : Precision::IEEE;
    Value acc = for_range(0, iters, 1, zeros({BM, BN}, DType::f32), [&](Value, Value acc) {
      for (int u = 0; u < UNROLL; ++u) acc = dot(p, q, acc, precision);
      return acc;
    });
    store(out + program_id(0) * (BM * BN) + rm * BN + rn, acc);
  });
  return k;
}

} // namespace tile::bench
