//===- TestKernelReferences.h - float64 references of test/kernels --------===//
// Free of the DSL: the runtime-only GPU tests include it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tile::testing {

/// Float64 reference of descriptorMatmulKernel: C[m, n] = A[m, k] · B[k, n], row-major, from the
/// inputs' 16-bit encodings (`toFloat` decodes one).
template <class ToFloat>
std::vector<double> matmulReference16(const std::vector<uint16_t> &a, const std::vector<uint16_t> &b, int m, int n,
                                      int k, ToFloat toFloat) {
  std::vector<double> c(size_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int kk = 0; kk < k; ++kk) acc += double(toFloat(a[size_t(i) * k + kk])) * toFloat(b[size_t(kk) * n + j]);
      c[size_t(i) * n + j] = acc;
    }
  return c;
}

/// What descriptorBlocksKernel must produce on a gridM x gridN grid: `out` (gridM * BM rows of
/// gridN * BN, the blocks read, zeros outside the tensor) and `dst` (row stride ld, starting
/// from `dstBefore`: twice the source where a block covered an element of the tensor).
struct DescriptorBlocks {
  std::vector<float> out, dst;
};
inline DescriptorBlocks descriptorBlocksReference(const std::vector<float> &src, const std::vector<float> &dstBefore,
                                                  int m, int n, int ld, int dm, int dn, int bm, int bn, int gridM,
                                                  int gridN) {
  DescriptorBlocks r{std::vector<float>(size_t(gridM) * bm * gridN * bn), dstBefore};
  const int outCols = gridN * bn;
  for (int i = 0; i < gridM * bm; ++i)
    for (int j = 0; j < outCols; ++j) {
      const int sr = i + dm, sc = j + dn;
      const bool inside = sr >= 0 && sr < m && sc >= 0 && sc < n;
      r.out[size_t(i) * outCols + j] = inside ? src[size_t(sr) * ld + sc] : 0.f;
      if (inside) r.dst[size_t(sr) * ld + sc] = 2.f * src[size_t(sr) * ld + sc];
    }
  return r;
}

/// What descriptorAddsKernel must leave in `dst` (row stride ld, from `dst`): each element of
/// the tensor that a block covered plus twice its source, in that order (exact in float: the
/// two adds of one element come from one program, and every element is covered at most once).
inline std::vector<float> descriptorAddsReference(const std::vector<float> &src, std::vector<float> dst, int m, int n,
                                                  int ld, int dm, int dn, int bm, int bn, int gridM, int gridN) {
  for (int i = 0; i < gridM * bm; ++i)
    for (int j = 0; j < gridN * bn; ++j) {
      const int r = i + dm, c = j + dn;
      if (r < 0 || r >= m || c < 0 || c >= n) continue;
      float &x = dst[size_t(r) * ld + c];
      x += src[size_t(r) * ld + c];
      x += src[size_t(r) * ld + c];
    }
  return dst;
}

/// Float64 reference of rowStatsKernel: per row the sum, the max and its first index.
struct RowStats {
  std::vector<double> sums, maxima;
  std::vector<int32_t> argmax;
};
inline RowStats rowStatsReference(const std::vector<float> &in, int m, int n) {
  RowStats r;
  for (int row = 0; row < m; ++row) {
    double total = 0;
    int best = 0;
    for (int c = 0; c < n; ++c) {
      total += in[size_t(row) * n + c];
      if (in[size_t(row) * n + c] > in[size_t(row) * n + best]) best = c;
    }
    r.sums.push_back(total);
    r.maxima.push_back(in[size_t(row) * n + best]);
    r.argmax.push_back(best);
  }
  return r;
}

/// Float64 reference of reduce3dKernel: along `axis` of a d0 x d1 x d2 row-major tensor,
/// results row-major over the remaining two dimensions (the max's first index on ties).
inline RowStats reduce3dReference(const std::vector<float> &in, int d0, int d1, int d2, int axis) {
  const int dims[3] = {d0, d1, d2};
  const int a = axis == 0 ? 1 : 0, b = axis == 2 ? 1 : 2; // the kept dimensions
  RowStats r;
  for (int i = 0; i < dims[a]; ++i)
    for (int j = 0; j < dims[b]; ++j) {
      double total = 0;
      int best = 0;
      float bestValue = 0;
      for (int k = 0; k < dims[axis]; ++k) {
        int idx[3];
        idx[a] = i;
        idx[b] = j;
        idx[axis] = k;
        float v = in[(size_t(idx[0]) * d1 + idx[1]) * d2 + idx[2]];
        total += v;
        if (k == 0 || v > bestValue) best = k, bestValue = v;
      }
      r.sums.push_back(total);
      r.maxima.push_back(bestValue);
      r.argmax.push_back(best);
    }
  return r;
}

/// Float64 reference of matmulKernel on inputs already rounded to what the kernel sees:
/// c[i * ldc + j] = sum_k a[i * sam + k * sak] * b[k * sbk + j * sbn] (+ bias[j], relu).
inline std::vector<double> matmulReference(const std::vector<double> &a, const std::vector<double> &b,
                                           const std::vector<double> &bias, int m, int n, int k, int sam, int sak,
                                           int sbk, int sbn, int epilogue) {
  std::vector<double> c(size_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int kk = 0; kk < k; ++kk)
        acc += a[size_t(i) * sam + size_t(kk) * sak] * b[size_t(kk) * sbk + size_t(j) * sbn];
      if (epilogue >= 1) acc += bias[j];
      if (epilogue == 2) acc = acc > 0 ? acc : 0;
      c[size_t(i) * n + j] = acc;
    }
  return c;
}

/// The bits of cvt.rna.tf32.f32: nearest, ties away from zero (NaN and inf unchanged).
inline uint32_t tf32Bits(uint32_t bits) {
  if ((bits & 0x7f800000u) == 0x7f800000u) return bits;
  return (bits + 0x1000u) & ~0x1fffu;
}

/// The bits of a TMA copy through a TFLOAT32 map (sm_90 wgmma's tf32 operands): nearest, ties to
/// even (NaN and inf unchanged).
inline uint32_t tf32BitsTiesEven(uint32_t bits) {
  if ((bits & 0x7f800000u) == 0x7f800000u) return bits;
  return (bits + 0xfffu + ((bits >> 13) & 1u)) & ~0x1fffu;
}

/// Float64 reference of loopBranchKernel.
inline std::vector<double> loopBranchReference(const std::vector<float> &x, int block, int reps) {
  std::vector<double> ref(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    if ((i / block) % 2 == 0) {
      double acc = x[i];
      for (int k = 0; k < reps; ++k) acc += double(i) + k;
      ref[i] = acc;
    } else {
      ref[i] = -x[i];
    }
  }
  return ref;
}

} // namespace tile::testing
