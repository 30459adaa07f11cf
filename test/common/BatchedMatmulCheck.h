//===- BatchedMatmulCheck.h - BatchedMatmul problems and float64 checks ---===//
// Shared by the CPU-executor test (test/unit/cpu_batched_matmul_tests.cpp) and the GPU
// test (test/gpu/kernels_gpu_tests.cpp) of the library's BatchedMatmul: a problem is a
// batch of M x N x K products whose operands lie in memory in one of several ways
// (row-major, transposed, batch dimension inside the rows, broadcast over the batch),
// with padded rows and an element offset of every pointer. Every element of an operand's
// buffer that is no element of the problem holds NaN (reading one shows), C is poisoned.
// Header-only; uses the kernel's declaration, not the DSL (the runtime-only GPU tests
// include it too).
#pragma once

#include "Numerics.h"
#include "../kernels/TestKernelReferences.h" // tf32Bits

#include "tile/kernels/BatchedMatmul.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace tile::testutil {

enum class MatmulInput { F32, TF32, F16, BF16 };
inline const char *inputName(MatmulInput t) {
  return t == MatmulInput::F32 ? "f32" : t == MatmulInput::TF32 ? "tf32" : t == MatmulInput::F16 ? "f16" : "bf16";
}
inline bool isHalfInput(MatmulInput t) { return t == MatmulInput::F16 || t == MatmulInput::BF16; }

/// Error bounds of C against float64 of the *unrounded* float inputs (before their
/// conversion to the kernel's input type), relative to the magnitude of the sum:
/// ||C - exact|| <= bound * ||M||, M[i, j] = Σ_k |A[i, k] · B[k, j]| + |bias[j]|, which
/// cancellation (or relu) cannot make small. Rounding both factors to a p-bit significand
/// (nearest) moves a product by at most 2 * 2^-p of its magnitude, so each element's error
/// is at most 2^(1-p) * M[i, j] plus the f32 sums' rounding: the bounds below are that and
/// ~1e-6 of slack for the sums. f32: the sums only.
inline double inputTolerance(MatmulInput t) {
  switch (t) {
  case MatmulInput::F32: return 1e-6;
  case MatmulInput::TF32: return 1.1e-3; // 11-bit significand: 2^-10 = 9.8e-4
  case MatmulInput::F16: return 1.1e-3;  // 11-bit significand
  case MatmulInput::BF16: return 8e-3;   // 8-bit significand: 2^-7 = 7.8e-3
  }
  return 0;
}

/// How an operand's matrices (rows x cols, one per batch entry) lie in memory.
enum class Storage {
  RowMajor,   ///< [batch][rows][cols + pad]
  ColMajor,   ///< [batch][cols][rows + pad]: the transposed matrix stored row-major
  BatchInner, ///< [rows][batch][cols + pad]: a permuted tensor (torch's x.transpose(0, 1))
  Broadcast,  ///< one [rows][cols + pad] matrix for every batch entry: batch stride 0
};
inline const char *storageName(Storage s) {
  return s == Storage::RowMajor     ? "row-major"
         : s == Storage::ColMajor   ? "col-major"
         : s == Storage::BatchInner ? "batch-inner"
                                    : "broadcast";
}

/// Element strides of one operand and the size of its buffer (pointer offset included).
struct OperandLayout {
  int64_t batch = 0, row = 0, col = 0, offset = 0, size = 0;
  int64_t at(int64_t b, int64_t r, int64_t c) const { return offset + b * batch + r * row + c * col; }
};

inline OperandLayout operandLayout(int64_t batch, int64_t rows, int64_t cols, Storage s, int64_t pad, int64_t offset) {
  OperandLayout l;
  switch (s) {
  case Storage::RowMajor: l.row = cols + pad, l.col = 1, l.batch = rows * l.row; break;
  case Storage::ColMajor: l.col = rows + pad, l.row = 1, l.batch = cols * l.col; break;
  case Storage::BatchInner: l.col = 1, l.batch = cols + pad, l.row = batch * l.batch; break;
  case Storage::Broadcast: l.row = cols + pad, l.col = 1, l.batch = 0; break;
  }
  l.offset = offset;
  l.size = l.at(batch - 1, rows - 1, cols - 1) + 1 + pad; // a padded tail as well
  return l;
}

/// One BatchedMatmul problem: C[b] = A[b]·B[b] (+ bias[b]) (relu).
struct BatchedMatmulCase {
  int64_t batch, m, n, k;
  Storage a = Storage::RowMajor, b = Storage::RowMajor, c = Storage::RowMajor; // C: never Broadcast
  int epilogue = 0;           ///< MatmulEpilogue: 0 none, 1 bias, 2 bias + relu
  bool biasBroadcast = false; ///< one bias row for the batch (stride 0), else one per entry
  int64_t pad = 3;            ///< row padding of every operand (0: dense)
  int64_t offset = 0;         ///< element offset of every pointer into its buffer

  std::string str() const {
    return std::to_string(batch) + " x " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
           ", A " + storageName(a) + ", B " + storageName(b) + ", C " + storageName(c) + ", epilogue " +
           std::to_string(epilogue) + (biasBroadcast ? " (one bias row)" : "") + ", pad " + std::to_string(pad) +
           ", offset " + std::to_string(offset);
  }
};

/// The buffers of one problem (what the kernel reads, in its input type) and its float64
/// references over the valid elements of C in (b, i, j) order.
struct BatchedMatmulProblem {
  MatmulInput input;
  BatchedMatmulCase cs;
  OperandLayout a, b, c;
  int64_t biasStride = 0;
  std::vector<float> a32, b32, bias; ///< f32 and tf32 inputs; bias (f32)
  std::vector<uint16_t> a16, b16;    ///< f16 and bf16 inputs (bits)
  std::vector<double> ref;           ///< float64 of the factors the kernel multiplies (tf32-rounded for TF32)
  std::vector<double> exact;         ///< float64 of the unrounded float inputs
  std::vector<double> magnitude;     ///< Σ_k |a · b| + |bias| of the unrounded inputs

  const void *aData() const { return isHalfInput(input) ? static_cast<const void *>(a16.data()) : a32.data(); }
  const void *bData() const { return isHalfInput(input) ? static_cast<const void *>(b16.data()) : b32.data(); }
  size_t elementBytes() const { return isHalfInput(input) ? 2 : 4; }
  size_t aBytes() const { return size_t(a.size) * elementBytes(); }
  size_t bBytes() const { return size_t(b.size) * elementBytes(); }
  int64_t biasOffset() const { return cs.offset; }
};

/// How the kernel rounds f32 to tf32: cvt.rna (mma.sync's operands) or a TMA copy through a
/// TFLOAT32 map (wgmma's). They differ on ties, about one input in 8192: a one-ulp move of a factor
/// that a 1e-5 bound notices at small K.
enum class Tf32Rounding { TiesAway, TiesEven };

/// Inputs drawn uniformly from [-2, 2) by `gen`, bias from [-1, 1).
template <class Gen>
BatchedMatmulProblem makeBatchedMatmul(MatmulInput input, const BatchedMatmulCase &cs, Gen &gen,
                                       Tf32Rounding tf32 = Tf32Rounding::TiesAway) {
  BatchedMatmulProblem p;
  p.input = input;
  p.cs = cs;
  p.a = operandLayout(cs.batch, cs.m, cs.k, cs.a, cs.pad, cs.offset);
  p.b = operandLayout(cs.batch, cs.k, cs.n, cs.b, cs.pad, cs.offset);
  p.c = operandLayout(cs.batch, cs.m, cs.n, cs.c, cs.pad, cs.offset);
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const bool half = isHalfInput(input);
  // Unrounded values (NaN outside the problem) and storage in the input type.
  auto fill = [&](const OperandLayout &l, int64_t rows, int64_t cols, bool broadcast, std::vector<float> &v32,
                  std::vector<uint16_t> &v16) {
    std::vector<float> orig(size_t(l.size), nan);
    for (int64_t bb = 0; bb < (broadcast ? 1 : cs.batch); ++bb)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) orig[size_t(l.at(bb, r, c))] = uniform(gen);
    if (!half) v32 = orig;
    else {
      v16.resize(orig.size());
      for (size_t i = 0; i < orig.size(); ++i) v16[i] = input == MatmulInput::F16 ? toHalf(orig[i]) : toBf16(orig[i]);
    }
    return orig;
  };
  std::vector<float> aOrig = fill(p.a, cs.m, cs.k, cs.a == Storage::Broadcast, p.a32, p.a16);
  std::vector<float> bOrig = fill(p.b, cs.k, cs.n, cs.b == Storage::Broadcast, p.b32, p.b16);
  p.biasStride = cs.biasBroadcast ? 0 : cs.n + cs.pad;
  p.bias.assign(size_t(p.biasOffset() + (cs.batch - 1) * p.biasStride + cs.n + cs.pad), nan);
  std::uniform_real_distribution<float> biasValue(-1.0f, 1.0f);
  for (int64_t bb = 0; bb < (cs.biasBroadcast ? 1 : cs.batch); ++bb)
    for (int64_t j = 0; j < cs.n; ++j) p.bias[size_t(p.biasOffset() + bb * p.biasStride + j)] = biasValue(gen);

  // The factor the kernel multiplies for storage element i.
  auto factor = [&](const std::vector<float> &v32, const std::vector<uint16_t> &v16, int64_t i) -> double {
    switch (input) {
    case MatmulInput::F32: return v32[size_t(i)];
    case MatmulInput::TF32: {
      const uint32_t in = bitsOf(v32[size_t(i)]);
      uint32_t bits =
          tf32 == Tf32Rounding::TiesEven ? tile::testing::tf32BitsTiesEven(in) : tile::testing::tf32Bits(in);
      float f;
      std::memcpy(&f, &bits, sizeof f);
      return f;
    }
    case MatmulInput::F16: return halfToFloat(v16[size_t(i)]);
    case MatmulInput::BF16: return bf16BitsToFloat(v16[size_t(i)]);
    }
    return 0;
  };
  const size_t count = size_t(cs.batch * cs.m * cs.n);
  p.ref.reserve(count);
  p.exact.reserve(count);
  p.magnitude.reserve(count);
  for (int64_t bb = 0; bb < cs.batch; ++bb)
    for (int64_t i = 0; i < cs.m; ++i)
      for (int64_t j = 0; j < cs.n; ++j) {
        double r = 0, e = 0, mag = 0;
        for (int64_t q = 0; q < cs.k; ++q) {
          int64_t ia = p.a.at(bb, i, q), ib = p.b.at(bb, q, j);
          r += factor(p.a32, p.a16, ia) * factor(p.b32, p.b16, ib);
          double product = double(aOrig[size_t(ia)]) * double(bOrig[size_t(ib)]);
          e += product;
          mag += std::fabs(product);
        }
        if (cs.epilogue >= 1) {
          double bias = p.bias[size_t(p.biasOffset() + bb * p.biasStride + j)];
          r += bias, e += bias, mag += std::fabs(bias);
        }
        if (cs.epilogue == 2) r = std::max(r, 0.0), e = std::max(e, 0.0);
        p.ref.push_back(r);
        p.exact.push_back(e);
        p.magnitude.push_back(mag);
      }
  return p;
}

/// Launches the problem through BatchedMatmul's launcher on `launcher`: a, b, c and bias
/// are the addresses of the buffers' first elements (host or device, as the launcher
/// takes them); the problem's offset is added here.
inline void launchBatchedMatmul(tile::kernels::Launcher &launcher, const BatchedMatmulProblem &p, uint64_t a,
                                uint64_t b, uint64_t c, uint64_t bias) {
  namespace tk = tile::kernels;
  const int64_t off = p.cs.offset, elem = int64_t(p.elementBytes());
  auto launch = [&]<class D>(bool tf32) {
    D::launch(launcher, {.matrix = {.a = a + off * elem,
                                    .b = b + off * elem,
                                    .c = c + off * 4,
                                    .bias = bias + p.biasOffset() * 4,
                                    .m = p.cs.m,
                                    .n = p.cs.n,
                                    .k = p.cs.k,
                                    .strideAm = p.a.row,
                                    .strideAk = p.a.col,
                                    .strideBk = p.b.row,
                                    .strideBn = p.b.col,
                                    .strideCm = p.c.row,
                                    .strideCn = p.c.col,
                                    .epilogue = tk::MatmulEpilogue(p.cs.epilogue),
                                    .tf32 = tf32},
                         .batch = p.cs.batch,
                         .strideAb = p.a.batch,
                         .strideBb = p.b.batch,
                         .strideCb = p.c.batch,
                         .strideBiasb = p.biasStride});
  };
  switch (p.input) {
  case MatmulInput::F32: launch.template operator()<tk::BatchedMatmulF32>(false); break;
  case MatmulInput::TF32: launch.template operator()<tk::BatchedMatmulF32>(true); break;
  case MatmulInput::F16: launch.template operator()<tk::BatchedMatmulF16>(false); break;
  case MatmulInput::BF16: launch.template operator()<tk::BatchedMatmulBF16>(false); break;
  }
}

/// C (its whole buffer, poisoned before the launch) against both references: within
/// `factorTolerance` of float64 of the factors and within inputTolerance() of float64 of
/// the unrounded inputs, both relative to the magnitudes (||C - ref|| / ||M||); no
/// NaN (so every element was written) and every element of the buffer outside C still
/// poison.
inline ::testing::AssertionResult checkBatchedMatmul(const BatchedMatmulProblem &p, const std::vector<float> &cBuffer,
                                                     double factorTolerance) {
  if (cBuffer.size() != size_t(p.c.size)) return ::testing::AssertionFailure() << "C buffer size mismatch";
  std::vector<float> got;
  std::vector<bool> inside(cBuffer.size(), false);
  got.reserve(p.ref.size());
  for (int64_t bb = 0; bb < p.cs.batch; ++bb)
    for (int64_t i = 0; i < p.cs.m; ++i)
      for (int64_t j = 0; j < p.cs.n; ++j) {
        size_t at = size_t(p.c.at(bb, i, j));
        got.push_back(cBuffer[at]);
        inside[at] = true;
      }
  const std::string what = std::string(inputName(p.input)) + " " + p.cs.str();
  // Both bounds are relative to the magnitudes M: f32 sums round by ~2^-24 of their running
  // size, which cancellation does not shrink, so relative to ||ref|| no fixed bound holds
  // (a 1e-6 bound on ||C - ref|| / ||ref|| failed now and then on random f32 problems).
  ::testing::AssertionResult factors =
      closeToMagnitude(got, p.ref, p.magnitude, factorTolerance, what + ": against float64 of the factors");
  if (!factors) return factors;
  ::testing::AssertionResult inputs = closeToMagnitude(got, p.exact, p.magnitude, inputTolerance(p.input),
                                                       what + ": against float64 of the unrounded inputs");
  if (!inputs) return inputs;
  for (size_t i = 0; i < cBuffer.size(); ++i)
    if (!inside[i] && bitsOf(cBuffer[i]) != kPoisonBits)
      return ::testing::AssertionFailure()
             << what << ": element " << i << " of C's buffer, outside C, was written (" << cBuffer[i] << ")";
  return ::testing::AssertionSuccess();
}

/// The ragged problems both executors run (per input type): M, N, K not multiples of any
/// block, K smaller than the block, M or N = 1, transposed, permuted and broadcast
/// operands, misaligned pointers, and aligned dense ones (the tensor-core fast paths).
inline std::vector<BatchedMatmulCase> batchedMatmulCases() {
  using S = Storage;
  return {
      {3, 100, 77, 45, S::RowMajor, S::RowMajor, S::RowMajor, 2},               // a ragged shape
      {2, 70, 90, 5, S::RowMajor, S::RowMajor, S::RowMajor, 1, true},           // K smaller than the block
      {3, 1, 300, 50, S::RowMajor, S::RowMajor, S::RowMajor, 0},                // M = 1
      {2, 300, 1, 50, S::RowMajor, S::RowMajor, S::RowMajor, 2},                // N = 1
      {3, 100, 77, 45, S::ColMajor, S::ColMajor, S::ColMajor, 1},               // every operand transposed
      {4, 65, 33, 70, S::Broadcast, S::BatchInner, S::BatchInner, 2, true},     // A shared, B and C permuted
      {3, 37, 50, 129, S::RowMajor, S::Broadcast, S::RowMajor, 0, false, 0, 1}, // B shared, misaligned, dense
      {2, 64, 64, 64, S::RowMajor, S::RowMajor, S::RowMajor, 2, false, 0},      // aligned and dense
      {5, 48, 80, 32, S::RowMajor, S::Broadcast, S::RowMajor, 1, true, 0},      // aligned, B shared
      {1, 1, 1, 1, S::RowMajor, S::RowMajor, S::RowMajor, 1},                   // one element
  };
}

} // namespace tile::testutil
