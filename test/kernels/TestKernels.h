//===- TestKernels.h - DSL kernels that exercise what the library does not -===//
// 2-D layouts, reductions along either axis (results in sliced layouts, stored through
// converted pointer tensors), argmax, atomics on colliding addresses, half precision,
// loops and branches. Compiled ahead of time for the GPU tests and run on the CPU
// executor for the differential bundle; each has a float64 reference in the tests.
#pragma once

#include "tile/tile.h"
#include "TestKernelReferences.h"

namespace tile::testing {

/// out[c, r] = in[r, c] for an M x N row-major matrix, BM x BN tiles per program.
inline const auto &transposeKernel() {
  static const auto k =
      tile::kernel("transpose", [](Ptr<float> in, Ptr<float> out, I32 m, I32 n, Const<int> BM, Const<int> BN) {
        Value rows = program_id(0) * BM + arange(0, BM);
        Value cols = program_id(1) * BN + arange(0, BN);
        Value mask = (col(rows) < m) & (row(cols) < n);
        Value tile = load(in + col(rows) * n + row(cols), mask);
        store(out + row(cols) * m + col(rows), tile, mask);
      });
  return k;
}

/// Tensor descriptors: program (i, j) loads the BM x BN block of `src` at (i * BM + dm,
/// j * BN + dn) (elements outside the tensor read 0), writes it densely to out (row stride
/// ldo) at (i * BM, j * BN), and twice it through `dst` at the block's own coordinates (only
/// the elements inside the tensor).
inline const auto &descriptorBlocksKernel() {
  static const auto k =
      tile::kernel("descriptor_blocks", [](TensorDesc<float, 2> src, TensorDesc<float, 2> dst, Ptr<float> out, I32 ldo,
                                           I32 dm, I32 dn, Const<int> BM, Const<int> BN) {
        Value r0 = program_id(0) * BM + dm, c0 = program_id(1) * BN + dn;
        Value block = load(src, {r0, c0}, {BM, BN});
        Value rows = program_id(0) * BM + arange(0, BM), cols = program_id(1) * BN + arange(0, BN);
        store(out + col(rows) * ldo + row(cols), block);
        store(dst, {r0, c0}, block * 2.0f);
      });
  return k;
}

/// Descriptor atomic adds: program (i, j) adds the BM x BN block of `src` at (i * BM + dm,
/// j * BN + dn) twice to `dst` at the block's own coordinates (only the elements inside the
/// tensor; on sm_90a TMA reduce-adds of one staging buffer, reused).
inline const auto &descriptorAddsKernel() {
  static const auto k = tile::kernel("descriptor_adds", [](TensorDesc<float, 2> src, TensorDesc<float, 2> dst, I32 dm,
                                                           I32 dn, Const<int> BM, Const<int> BN) {
    Value r0 = program_id(0) * BM + dm, c0 = program_id(1) * BN + dn;
    Value block = load(src, {r0, c0}, {BM, BN});
    atomic_add(dst, {r0, c0}, block);
    atomic_add(dst, {r0, c0}, block);
  });
  return k;
}

/// C[M, N] (f32, row stride n) = A[M, K] · B[K, N] (f16 descriptors), one BM x BN tile per
/// program (grid x: tile rows, y: tile columns): on sm_90a its K loop copies through TMA.
inline const auto &descriptorMatmulKernel() {
  static const auto k =
      tile::kernel("descriptor_matmul", [](TensorDesc<f16, 2> a, TensorDesc<f16, 2> b, Ptr<float> c, I32 m, I32 n,
                                           I32 kk, Const<int> BM, Const<int> BN, Const<int> BK) {
        Value m0 = program_id(0) * BM, n0 = program_id(1) * BN;
        Value acc = for_range(0, kk, BK, zeros({BM, BN}, DType::f32), [&](Value k0, Value acc) {
          return dot(load(a, {m0, k0}, {BM, BK}), load(b, {k0, n0}, {BK, BN}), acc);
        });
        Value rows = m0 + arange(0, BM), cols = n0 + arange(0, BN);
        store(c + col(rows) * n + row(cols), acc, (col(rows) < m) & (row(cols) < n));
      });
  return k;
}

/// Per row of an M x N matrix (BN >= N): the sum, the max and the index of the max.
inline const auto &rowStatsKernel() {
  static const auto k =
      tile::kernel("row_stats", [](Ptr<float> in, Ptr<float> sums, Ptr<float> maxima, Ptr<int32_t> argmaxes, I32 m,
                                   I32 n, Const<int> BM, Const<int> BN) {
        Value rows = program_id(0) * BM + arange(0, BM);
        Value cols = arange(0, BN);
        Value mask = (col(rows) < m) & (row(cols) < n);
        Value x = load(in + col(rows) * n + row(cols), mask, -1e30f);
        Value rowMask = rows < m;
        store(sums + rows, sum(where(mask, x, 0.0f), 1), rowMask);
        store(maxima + rows, max(x, 1), rowMask);
        store(argmaxes + rows, argmax(x, 1), rowMask);
      });
  return k;
}

/// Reductions of a rank-3 tensor: one program loads a D0 x D1 x D2 block (masked to the
/// d0 x d1 x d2 row-major input) and stores its sum, max and argmax along AXIS, row-major
/// over the two remaining dimensions. Warps may split the reduced axis.
inline const auto &reduce3dKernel() {
  static const auto k =
      tile::kernel("reduce3d", [](Ptr<float> in, Ptr<float> sums, Ptr<float> maxima, Ptr<int32_t> argmaxes, I32 d0,
                                  I32 d1, I32 d2, Const<int> D0, Const<int> D1, Const<int> D2, Const<int> AXIS) {
        Value i0 = expand_dims(expand_dims(arange(0, D0), 1), 2);
        Value i1 = expand_dims(expand_dims(arange(0, D1), 0), 2);
        Value i2 = expand_dims(expand_dims(arange(0, D2), 0), 0);
        Value mask = (i0 < d0) & (i1 < d1) & (i2 < d2);
        Value x = load(in + (i0 * d1 + i1) * d2 + i2, mask, -1e30f);
        // The kept dimensions (r, c) of the result and their extents.
        const int axis = AXIS.value();
        Value r = col(arange(0, axis == 0 ? int(D1) : int(D0)));
        Value c = row(arange(0, axis == 2 ? int(D1) : int(D2)));
        Value rows = axis == 0 ? d1 : d0, cols = axis == 2 ? d1 : d2;
        Value offs = r * cols + c;
        Value keep = (r < rows) & (c < cols);
        store(sums + offs, sum(where(mask, x, 0.0f), axis), keep);
        store(maxima + offs, max(x, axis), keep);
        store(argmaxes + offs, argmax(x, axis), keep);
      });
  return k;
}

/// Per column of an M x N matrix (BM >= M): the minimum.
inline const auto &colMinKernel() {
  static const auto k =
      tile::kernel("col_min", [](Ptr<float> in, Ptr<float> minima, I32 m, I32 n, Const<int> BM, Const<int> BN) {
        Value rows = arange(0, BM);
        Value cols = program_id(0) * BN + arange(0, BN);
        Value mask = (col(rows) < m) & (row(cols) < n);
        Value x = load(in + col(rows) * n + row(cols), mask, 1e30f);
        store(minima + cols, min(x, 0), cols < n);
      });
  return k;
}

/// bins[v] += 1 for each value v in [0, nbins): many programs hit the same bins.
inline const auto &histogramKernel() {
  static const auto k = tile::kernel("histogram", [](Ptr<int32_t> values, Ptr<int32_t> bins, I32 n, Const<int> BLOCK) {
    Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
    Value mask = offs < n;
    Value v = load(values + offs, mask);
    atomic_add(bins + v, full({BLOCK}, 1, DType::i32), mask);
  });
  return k;
}

/// y = half(x * scale) and z = bfloat16(x * scale), computing in float from half input.
inline const auto &halfScaleKernel() {
  static const auto k =
      tile::kernel("half_scale", [](Ptr<f16> x, Ptr<f16> y, Ptr<bf16> z, F32 scale, I32 n, Const<int> BLOCK) {
        Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
        Value mask = offs < n;
        Value v = cast(load(x + offs, mask), DType::f32) * scale;
        store(y + offs, cast(v, DType::f16), mask);
        store(z + offs, cast(v, DType::bf16), mask);
      });
  return k;
}

/// fma on half and on bfloat16 operands (the bfloat16 ones the halves rounded): each computed
/// in float and rounded once to its type.
inline const auto &smallFloatFmaKernel() {
  static const auto k = tile::kernel(
      "small_float_fma", [](Ptr<f16> a, Ptr<f16> b, Ptr<f16> c, Ptr<f16> y, Ptr<bf16> z, I32 n, Const<int> BLOCK) {
        Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
        Value mask = offs < n;
        Value x0 = load(a + offs, mask), x1 = load(b + offs, mask), x2 = load(c + offs, mask);
        store(y + offs, fma(x0, x1, x2), mask);
        store(z + offs, fma(cast(x0, DType::bf16), cast(x1, DType::bf16), cast(x2, DType::bf16)), mask);
      });
  return k;
}

/// fast_exp2 (the GPU's ex2.approx.ftz.f32) beside exp2 (IEEE, subnormal results kept).
inline const auto &fastExp2Kernel() {
  static const auto k =
      tile::kernel("fast_exp2", [](Ptr<float> x, Ptr<float> fast, Ptr<float> exact, I32 n, Const<int> BLOCK) {
        Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
        Value mask = offs < n;
        Value v = load(x + offs, mask);
        store(fast + offs, fast_exp2(v), mask);
        store(exact + offs, exp2(v), mask);
      });
  return k;
}

/// Scalar parameters of every float width and a bool: out = x * h + b where flag, else
/// x - h (h a half, b a bfloat16, both widened to float).
inline const auto &scalarArgsKernel() {
  static const auto k =
      tile::kernel("scalar_args", [](Ptr<float> x, Ptr<float> out, F16 h, BF16 b, I1 flag, I32 n, Const<int> BLOCK) {
        Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
        Value mask = offs < n;
        Value xv = load(x + offs, mask);
        Value hf = cast(h, DType::f32), bf = cast(b, DType::f32);
        store(out + offs, where(flag, xv * hf + bf, xv - hf), mask);
      });
  return k;
}

/// out[i] = sum over k < reps of (i + k) if the program id is even, else -x[i]: a loop
/// with a carried tensor and a branch on a scalar.
inline const auto &loopBranchKernel() {
  static const auto k =
      tile::kernel("loop_branch", [](Ptr<float> x, Ptr<float> out, I32 n, I32 reps, Const<int> BLOCK) {
        Value pid = program_id(0);
        Value offs = pid * BLOCK + arange(0, BLOCK);
        Value mask = offs < n;
        Value xv = load(x + offs, mask);
        Value result = if_then_else(
            pid % 2 == 0,
            [&] {
              return for_range(0, reps, 1, {xv}, [&](Value k, std::vector<Value> acc) {
                return std::vector<Value>{acc[0] + cast(offs + k, DType::f32)};
              });
            },
            [&] { return std::vector<Value>{-xv}; })[0];
        store(out + offs, result, mask);
      });
  return k;
}

} // namespace tile::testing
