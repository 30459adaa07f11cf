// tile.dot, tile.trans and tile.reshape on the CPU executor.
//  - A tiled matmul (K loop, ragged masks, any strides, optional bias and relu, B either
//    loaded [BK, BN] or loaded transposed and put back with trans) for f16, bf16, f32
//    IEEE and f32 TF32, against float64 references computed here from the rounded
//    inputs, and bit for bit against the documented order (one fmaf per product in
//    increasing k, starting from the accumulator: what the GPU's FMA path does too).
//  - TF32 rounding (cvt.rna: ties away from zero, NaN/inf kept, overflow to inf) bit
//    exact on special values.
//  - trans of 2-D and 3-D tensors (every 3-D permutation) and reshape between ranks,
//    bit exact, for every element type the DSL has, bools and pointers included.
#include "cpu_test_util.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

using namespace tile;
using namespace tile::cputest;

namespace {

//===----------------------------------------------------------------------===//
// Host numerics
//===----------------------------------------------------------------------===//

float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// cvt.rna.tf32.f32 as TileOps.td documents it: 0x1000 added to the magnitude, the low
/// 13 bits cleared; NaN and infinities unchanged.
float tf32(float x) {
  uint32_t u = bitsOf(x);
  if ((u & 0x7fffffffu) < 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
  return fromBits(u);
}

float bf16ToFloat(uint16_t h) { return fromBits(uint32_t(h) << 16); }

/// The three input types of the matmul: how a host float becomes an input element and
/// what that element is worth.
enum class In { F16, BF16, F32, TF32 };
const char *nameOf(In t) { return t == In::F16 ? "f16" : t == In::BF16 ? "bf16" : t == In::F32 ? "f32" : "tf32"; }

//===----------------------------------------------------------------------===//
// The matmul kernel
//===----------------------------------------------------------------------===//

/// C[M, N] = A[M, K] · B[K, N] (+ bias[N]) (relu), f32 C with row stride ldc. A and B
/// have any strides (element (i, j) of A at a + i * sam + j * sak). With TRANSB the B
/// tile is loaded as [BN, BK] and transposed before the dot. One BM x BN tile of C per
/// program on a 2-D grid.
template <class T> const auto &matmulKernel() {
  static const auto k =
      tile::kernel(std::is_same_v<T, float> ? "dot_test_f32"
                   : std::is_same_v<T, f16> ? "dot_test_f16"
                                            : "dot_test_bf16",
                   [](Ptr<T> a, Ptr<T> b, Ptr<float> c, Ptr<float> bias, I32 m, I32 n, I32 kk, I32 sam, I32 sak,
                      I32 sbk, I32 sbn, I32 ldc, Const<int> BM, Const<int> BN, Const<int> BK, Const<int> EPILOGUE,
                      Const<int> TF32, Const<int> TRANSB) {
                     Value rm = program_id(0) * BM + arange(0, BM), rn = program_id(1) * BN + arange(0, BN);
                     Value rk = arange(0, BK);
                     Precision precision = TF32 ? Precision::TF32 : Precision::IEEE;
                     Value acc = for_range(0, kk, BK, zeros({BM, BN}, DType::f32), [&](Value k0, Value acc) {
                       Value ks = k0 + rk;
                       Value tileA = load(a + col(rm) * sam + row(ks) * sak, (col(rm) < m) & (row(ks) < kk), 0.0f);
                       Value tileB;
                       if (TRANSB)
                         tileB = trans(load(b + col(rn) * sbn + row(ks) * sbk, (col(rn) < n) & (row(ks) < kk), 0.0f));
                       else tileB = load(b + col(ks) * sbk + row(rn) * sbn, (col(ks) < kk) & (row(rn) < n), 0.0f);
                       return dot(tileA, tileB, acc, precision);
                     });
                     if (EPILOGUE >= 1) acc = acc + row(load(bias + rn, rn < n, 0.0f));
                     if (EPILOGUE == 2) acc = maximum(acc, 0.0f);
                     store(c + col(rm) * ldc + row(rn), acc, (col(rm) < m) & (row(rn) < n));
                   });
  return k;
}

struct MatmulCase {
  int m, n, k, bm, bn, bk;
};

class CpuDot : public Seeded {
protected:
  /// One matmul through the kernel: inputs of type `in` with padded strides (B stored
  /// transposed when `bTransposed`), checked against float64 and against the fmaf order.
  void runMatmul(In in, MatmulCase s, int epilogue, bool bTransposed, bool transB, bool check = false) {
    SCOPED_TRACE(std::string(nameOf(in)) + " " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                 std::to_string(s.k) + " blocks " + std::to_string(s.bm) + "x" + std::to_string(s.bn) + "x" +
                 std::to_string(s.bk) + " epilogue " + std::to_string(epilogue) +
                 (bTransposed ? " B stored transposed" : "") + (transB ? " B tile through trans" : ""));
    const int lda = s.k + 3, ldb = bTransposed ? s.k + 5 : s.n + 5, ldc = s.n + 2;
    const int sam = lda, sak = 1, sbk = bTransposed ? 1 : ldb, sbn = bTransposed ? ldb : 1;
    const size_t aSize = size_t(s.m) * lda, bSize = size_t(bTransposed ? s.n : s.k) * ldb;
    // Host values of the inputs as the kernel sees them (exact for f16/bf16), and storage.
    // The padding between rows is NaN: a masked-off element that is read shows.
    const bool half = in == In::F16 || in == In::BF16;
    std::vector<float> av(aSize), bv(bSize);
    std::vector<uint16_t> a16(aSize), b16(bSize);
    auto fill = [&](std::vector<float> &v, std::vector<uint16_t> &v16, int ld, int cols) {
      for (size_t i = 0; i < v.size(); ++i) {
        float x = int(i % ld) < cols ? uniform(-2.f, 2.f) : std::numeric_limits<float>::quiet_NaN();
        if (in == In::F16) v16[i] = toHalf(x), x = halfToFloat(v16[i]);
        if (in == In::BF16) v16[i] = toBf16(x), x = bf16ToFloat(v16[i]);
        v[i] = x;
      }
    };
    fill(av, a16, lda, s.k);
    fill(bv, b16, ldb, bTransposed ? s.k : s.n);
    std::vector<float> bias = randomFloats(s.n, -1.f, 1.f);
    auto A = [&](int i, int k) { return av[size_t(i) * sam + size_t(k) * sak]; };
    auto B = [&](int k, int j) { return bv[size_t(k) * sbk + size_t(j) * sbn]; };

    std::vector<float> out = poisoned(size_t(s.m) * ldc);
    {
      cpu::ScopedBuffer ba(half ? static_cast<const void *>(a16.data()) : av.data(), aSize * (half ? 2 : 4));
      cpu::ScopedBuffer bb(half ? static_cast<const void *>(b16.data()) : bv.data(), bSize * (half ? 2 : 4));
      cpu::ScopedBuffer bc(out.data(), out.size() * 4, /*initialized=*/false);
      cpu::ScopedBuffer bbias(bias.data(), bias.size() * 4);
      Grid grid(cdiv(s.m, s.bm), cdiv(s.n, s.bn));
      LaunchOptions opts = cpuOptions(4, check);
      auto launch = [&](auto ptrA, auto ptrB, const auto &kernel, int tf) {
        kernel.launch(grid, opts, ptrA, ptrB, out.data(), bias.data(), s.m, s.n, s.k, sam, sak, sbk, sbn, ldc, s.bm,
                      s.bn, s.bk, epilogue, tf, transB ? 1 : 0);
      };
      // A Ptr<f16> takes an f16 *: the uint16_t storage holds the half bits.
      if (in == In::F16)
        launch(reinterpret_cast<f16 *>(a16.data()), reinterpret_cast<f16 *>(b16.data()), matmulKernel<f16>(), 0);
      else if (in == In::BF16)
        launch(reinterpret_cast<bf16 *>(a16.data()), reinterpret_cast<bf16 *>(b16.data()), matmulKernel<bf16>(), 0);
      else launch(av.data(), bv.data(), matmulKernel<float>(), in == In::TF32 ? 1 : 0);
    }

    // References: float64 from the factors the kernel multiplies (tf32-rounded for TF32),
    // float64 from the unrounded f32 inputs, and the documented fmaf order in f32.
    const bool round = in == In::TF32;
    std::vector<double> ref, unrounded, magnitude;
    std::vector<float> got, ordered;
    size_t orderMismatches = 0, firstMismatch = 0;
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j) {
        double r = 0, u = 0, mag = 0;
        float f = 0.f;
        for (int k = 0; k < s.k; ++k) {
          float x = A(i, k), y = B(k, j);
          u += double(x) * double(y);
          mag += std::fabs(double(x) * double(y));
          if (round) x = tf32(x), y = tf32(y);
          r += double(x) * double(y);
          f = std::fmaf(x, y, f);
        }
        auto epi = [&](auto v) {
          using V = decltype(v);
          if (epilogue >= 1) v += V(bias[j]);
          if (epilogue == 2) v = std::max(v, V(0));
          return v;
        };
        ref.push_back(epi(r));
        unrounded.push_back(epi(u));
        magnitude.push_back(mag + (epilogue >= 1 ? std::fabs(double(bias[j])) : 0.0));
        ordered.push_back(epi(f));
        got.push_back(out[size_t(i) * ldc + j]);
        if (bitsOf(got.back()) != bitsOf(ordered.back()) && orderMismatches++ == 0) firstMismatch = got.size() - 1;
      }
    // Both bounds are relative to the magnitudes Σ|a·b| + |bias|, not to the result: the
    // f32 sums round by ~2^-24 of their running size, which cancellation (the bias against
    // the product, or relu) does not shrink (1e-6 relative to the result failed on 1x1x1
    // with a bias, seed 3695884918).
    EXPECT_TRUE(closeToMagnitude(got, ref, magnitude, 1e-6, "against float64 of the factors"));
    // Rounding both inputs to TF32 (10-bit mantissa, to nearest) moves each product by at
    // most 2 * 2^-11 of its magnitude.
    if (round) {
      EXPECT_TRUE(closeToMagnitude(got, unrounded, magnitude, 2.0 * std::ldexp(1.0, -11),
                                   "TF32 against float64 of the unrounded inputs"));
    }
    EXPECT_EQ(orderMismatches, 0u) << "elements differing from the fmaf loop in increasing k; first at "
                                   << firstMismatch << ": got " << got[firstMismatch] << ", fmaf order gives "
                                   << ordered[firstMismatch];
    // The padding of C is never written.
    for (int i = 0; i < s.m; ++i)
      for (int j = s.n; j < ldc; ++j) ASSERT_EQ(bitsOf(out[size_t(i) * ldc + j]), kPoisonBits) << i << "," << j;
  }
};

const std::vector<MatmulCase> kShapes = {
    {1000, 999, 77, 32, 32, 32}, // ragged M, N and K, three K steps
    {1, 1, 1, 16, 16, 16},       // one element, everything masked but one
    {1, 1, 1, 1, 1, 1},          // 1x1x1 blocks
    {1, 300, 50, 1, 64, 16},     // M = 1 (a single-row block)
    {300, 1, 50, 64, 1, 16},     // N = 1 (a single-column block: chunks of one)
    {70, 90, 5, 32, 64, 16},     // K smaller than the block
    {64, 64, 64, 64, 64, 64},    // one program, one K step
    {100, 40, 130, 16, 32, 64},  // K loop with a ragged last step
};

TEST_F(CpuDot, MatmulF32Ieee) {
  for (const MatmulCase &s : kShapes) runMatmul(In::F32, s, 0, false, false);
}

TEST_F(CpuDot, MatmulF32Tf32) {
  for (const MatmulCase &s : kShapes) runMatmul(In::TF32, s, 0, false, false);
}

TEST_F(CpuDot, MatmulF16) {
  for (const MatmulCase &s : kShapes) runMatmul(In::F16, s, 0, false, false);
}

TEST_F(CpuDot, MatmulBf16) {
  for (const MatmulCase &s : kShapes) runMatmul(In::BF16, s, 0, false, false);
}

TEST_F(CpuDot, MatmulBiasReluAndTransposedB) {
  for (In in : {In::F32, In::TF32, In::F16, In::BF16}) {
    runMatmul(in, {1000, 999, 77, 32, 32, 32}, 2, /*bTransposed=*/true, /*transB=*/false);
    runMatmul(in, {130, 70, 45, 32, 64, 16}, 1, /*bTransposed=*/false, /*transB=*/false);
    // B stored transposed and loaded as [BN, BK] tiles, then trans: the dot's operand
    // is a materialised tensor.
    runMatmul(in, {130, 70, 45, 32, 64, 16}, 2, /*bTransposed=*/true, /*transB=*/true);
    runMatmul(in, {1, 1, 1, 1, 1, 1}, 1, /*bTransposed=*/true, /*transB=*/true);
  }
}

TEST_F(CpuDot, MatmulInCheckingMode) {
  // Masked edges and the K loop in checking mode: every load is inside the registered
  // buffers, so the launch runs through and gives the same results.
  runMatmul(In::F32, {70, 90, 45, 32, 64, 16}, 2, true, true, /*check=*/true);
  runMatmul(In::F16, {33, 17, 9, 16, 16, 16}, 0, false, false, /*check=*/true);
}

//===----------------------------------------------------------------------===//
// TF32 rounding, bit for bit
//===----------------------------------------------------------------------===//

/// c[M, N] = dot(a[M, 1], b[1, N], acc[M, N]): one product per element.
const auto &outerKernel() {
  static const auto k = tile::kernel(
      "dot_outer_tf32", [](Ptr<float> a, Ptr<float> b, Ptr<float> acc, Ptr<float> c, Const<int> M, Const<int> N) {
        Value rm = arange(0, M), rn = arange(0, N);
        Value offs = col(rm) * N + row(rn);
        store(c + offs, dot(load(a + col(rm)), load(b + row(rn)), load(acc + offs), Precision::TF32));
      });
  return k;
}

TEST_F(CpuDot, Tf32RoundsToNearestTiesAwayBitExact) {
  constexpr int M = 64, N = 8;
  std::vector<float> a;
  for (uint32_t bits : {0x3f801000u, 0xbf801000u, 0x3f800fffu, 0x3f803000u, 0x3f802fffu, 0x7f7fffffu, 0xff7fffffu,
                        0x7f7fefffu, 0x7f800000u, 0xff800000u, 0x7fc00001u, 0x00001000u, 0x00000fffu, 0x80001000u,
                        0x00000000u, 0x80000000u, 0x007ff000u, 0x3fffffffu})
    a.push_back(fromBits(bits));
  while (a.size() < M) {
    uint32_t bits = static_cast<uint32_t>(gen_());
    if (a.size() % 2) bits = (bits & ~0x1fffu) | 0x1000u; // exactly halfway between two tf32 values
    a.push_back(fromBits(bits));
  }
  std::vector<float> b = {1.f, -1.f, 2.f, 0.5f, fromBits(0x3f801000u), fromBits(0x3fa00fffu), 0.f, 3.f};
  std::vector<float> acc(M * N), c = poisoned(M * N);
  for (size_t i = 0; i < acc.size(); ++i) acc[i] = i % 3 == 0 ? 0.f : uniform(-1.f, 1.f);
  outerKernel().launch({1}, cpuOptions(), a.data(), b.data(), acc.data(), c.data(), M, N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float want = std::fmaf(tf32(a[i]), tf32(b[j]), acc[i * N + j]), have = c[i * N + j];
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(have) && bitsOf(have) != kPoisonBits) << i << "," << j;
        continue;
      }
      ASSERT_EQ(bitsOf(have), bitsOf(want))
          << "a = " << std::hex << bitsOf(a[i]) << ", b = " << bitsOf(b[j]) << ", acc = " << bitsOf(acc[i * N + j])
          << std::dec << " at " << i << "," << j;
    }
  // The case that tells rna from rne and truncation: 1 + 2^-11 (times 1, plus 0) rounds
  // up to 1 + 2^-10, not down to 1. Checked on the reference too.
  EXPECT_EQ(bitsOf(tf32(fromBits(0x3f801000u))), 0x3f802000u);
  EXPECT_EQ(bitsOf(c[0]), 0x3f802000u);
  EXPECT_EQ(bitsOf(c[1 * N + 1]), 0x3f802000u); // -(1 + 2^-11) times -1: away from zero too
}

//===----------------------------------------------------------------------===//
// trans and reshape, bit for bit
//===----------------------------------------------------------------------===//

template <class T> std::string typeName() {
  if constexpr (std::is_same_v<T, float>) return "f32";
  else if constexpr (std::is_same_v<T, double>) return "f64";
  else if constexpr (std::is_same_v<T, f16>) return "f16";
  else if constexpr (std::is_same_v<T, bf16>) return "bf16";
  else if constexpr (std::is_same_v<T, bool>) return "i1";
  else return "i" + std::to_string(8 * sizeof(T));
}

/// Row-major element offsets of a tensor of `shape` (rank 1 to 3), with per-dimension
/// strides `strides` (row-major ones unless given).
Value offsetsOf(const std::vector<int64_t> &shape, std::vector<int64_t> strides = {}) {
  const size_t rank = shape.size();
  if (strides.empty()) {
    strides.assign(rank, 1);
    for (int d = int(rank) - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  }
  Value offs;
  for (size_t d = 0; d < rank; ++d) {
    Value r = arange(0, shape[d]) * int(strides[d]);
    for (size_t e = 0; e < rank; ++e)
      if (e != d) r = expand_dims(r, int(e));
    offs = offs.valid() ? offs + r : r;
  }
  return offs;
}

/// Shapes of up to three dimensions as Const parameters (0: no such dimension).
std::vector<int64_t> shapeOf(int d0, int d1, int d2) {
  std::vector<int64_t> s;
  for (int d : {d0, d1, d2})
    if (d) s.push_back(d);
  return s;
}

constexpr std::array<std::array<int, 3>, 6> kPermutations = {
    {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}};

/// out = trans(in, order) for a 2-D or 3-D row-major input (D2 = 0: 2-D, order index
/// P < 2: {0, 1} / {1, 0}, and P = 2: trans(x) without an order), stored row-major in
/// the result's shape.
template <class T> const auto &transKernel() {
  static const auto k = tile::kernel(
      "trans_" + typeName<T>(), [](Ptr<T> in, Ptr<T> out, Const<int> D0, Const<int> D1, Const<int> D2, Const<int> P) {
        std::vector<int64_t> shape = shapeOf(D0, D1, D2);
        Value x = load(in + offsetsOf(shape));
        std::vector<int> order;
        if (shape.size() == 3) order.assign(kPermutations[P].begin(), kPermutations[P].end());
        else order = P == 0 ? std::vector<int>{0, 1} : std::vector<int>{1, 0};
        std::vector<int64_t> resultShape;
        for (int o : order) resultShape.push_back(shape[o]);
        store(out + offsetsOf(resultShape), shape.size() == 2 && P == 2 ? trans(x) : trans(x, order));
      });
  return k;
}

/// out = reshape(in, OUT) for row-major input of shape IN; the result is stored with
/// column-major strides of its own shape, so that its shape shows in the output.
template <class T> const auto &reshapeKernel() {
  static const auto k =
      tile::kernel("reshape_" + typeName<T>(), [](Ptr<T> in, Ptr<T> out, Const<int> I0, Const<int> I1, Const<int> I2,
                                                  Const<int> O0, Const<int> O1, Const<int> O2) {
        std::vector<int64_t> inShape = shapeOf(I0, I1, I2), outShape = shapeOf(O0, O1, O2);
        std::vector<int64_t> colMajor(outShape.size(), 1);
        for (size_t d = 1; d < outShape.size(); ++d) colMajor[d] = colMajor[d - 1] * outShape[d - 1];
        store(out + offsetsOf(outShape, colMajor), reshape(load(in + offsetsOf(inShape)), outShape));
      });
  return k;
}

/// Row-major multi-index of flat index `f` in `shape`, and its offset under `strides`.
int64_t restride(int64_t f, const std::vector<int64_t> &shape, const std::vector<int64_t> &strides) {
  int64_t off = 0;
  for (int d = int(shape.size()) - 1; d >= 0; --d) off += (f % shape[d]) * strides[d], f /= shape[d];
  return off;
}

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int d = int(shape.size()) - 2; d >= 0; --d) s[d] = s[d + 1] * shape[d + 1];
  return s;
}

/// Storage of a test element type on the host, and a random value of it (bools 0/1).
template <class T>
using HostOf = std::conditional_t<std::is_same_v<T, f16> || std::is_same_v<T, bf16>, uint16_t,
                                  std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>>;

class CpuShapeOps : public Seeded {
protected:
  /// The storage as the kernel's Ptr<T> takes it (f16 and bf16 hold their bits in uint16_t,
  /// bool in uint8_t).
  template <class T> static T *typed(std::vector<HostOf<T>> &v) { return reinterpret_cast<T *>(v.data()); }

  template <class T> std::vector<HostOf<T>> randomElements(size_t n) {
    std::vector<HostOf<T>> v(n);
    for (auto &x : v) {
      if constexpr (std::is_same_v<T, bool>) x = uint8_t(gen_() & 1);
      else if constexpr (std::is_same_v<T, f16>) x = toHalf(uniform(-100.f, 100.f));
      else if constexpr (std::is_same_v<T, bf16>) x = toBf16(uniform(-100.f, 100.f));
      else if constexpr (std::is_floating_point_v<T>) x = T(uniform(-100.f, 100.f)) / T(3);
      else x = static_cast<T>(gen_());
    }
    return v;
  }

  template <class T> void checkTrans(int d0, int d1, int d2, int p) {
    std::vector<int64_t> shape = shapeOf(d0, d1, d2);
    std::vector<int> order;
    if (shape.size() == 3) order.assign(kPermutations[p].begin(), kPermutations[p].end());
    else order = p == 0 ? std::vector<int>{0, 1} : std::vector<int>{1, 0};
    std::vector<int64_t> resultShape;
    for (int o : order) resultShape.push_back(shape[o]);
    const std::vector<int64_t> resultStrides = rowMajorStrides(resultShape);
    size_t n = 1;
    for (int64_t d : shape) n *= size_t(d);
    auto in = randomElements<T>(n);
    std::vector<HostOf<T>> out(n + 4);
    std::memset(out.data(), 0xA5, out.size() * sizeof(HostOf<T>));
    const HostOf<T> canary = out[n];
    transKernel<T>().launch({1}, cpuOptions(), typed<T>(in), typed<T>(out), d0, d1, d2, p);
    // Source element s lands at result index r with r[i] = s[order[i]].
    for (size_t f = 0; f < n; ++f) {
      std::vector<int64_t> s(shape.size());
      int64_t rest = int64_t(f);
      for (int d = int(shape.size()) - 1; d >= 0; --d) s[d] = rest % shape[d], rest /= shape[d];
      int64_t at = 0;
      for (size_t i = 0; i < order.size(); ++i) at += s[order[i]] * resultStrides[i];
      ASSERT_EQ(std::memcmp(&out[at], &in[f], sizeof(HostOf<T>)), 0)
          << typeName<T>() << " " << d0 << "x" << d1 << "x" << d2 << " permutation " << p << ": source element " << f
          << " at result offset " << at;
    }
    for (size_t i = n; i < out.size(); ++i) ASSERT_EQ(out[i], canary) << "written past the end";
  }

  template <class T> void checkReshape(std::vector<int64_t> from, std::vector<int64_t> to) {
    from.resize(3, 0);
    to.resize(3, 0);
    std::vector<int64_t> toShape = shapeOf(int(to[0]), int(to[1]), int(to[2]));
    std::vector<int64_t> colMajor(toShape.size(), 1);
    for (size_t d = 1; d < toShape.size(); ++d) colMajor[d] = colMajor[d - 1] * toShape[d - 1];
    size_t n = 1;
    for (int64_t d : toShape) n *= size_t(d);
    auto in = randomElements<T>(n);
    std::vector<HostOf<T>> out(n + 4);
    std::memset(out.data(), 0xA5, out.size() * sizeof(HostOf<T>));
    const HostOf<T> canary = out[n];
    reshapeKernel<T>().launch({1}, cpuOptions(), typed<T>(in), typed<T>(out), int(from[0]), int(from[1]), int(from[2]),
                              int(to[0]), int(to[1]), int(to[2]));
    for (size_t f = 0; f < n; ++f) {
      int64_t at = restride(int64_t(f), toShape, colMajor);
      ASSERT_EQ(std::memcmp(&out[at], &in[f], sizeof(HostOf<T>)), 0)
          << typeName<T>() << " reshape to " << to[0] << "x" << to[1] << "x" << to[2] << ": element " << f;
    }
    for (size_t i = n; i < out.size(); ++i) ASSERT_EQ(out[i], canary) << "written past the end";
  }

  template <class T> void transAndReshapeEverything() {
    SCOPED_TRACE(typeName<T>());
    for (auto [r, c] : std::vector<std::pair<int, int>>{{1, 1}, {1, 16}, {16, 1}, {8, 32}, {32, 8}, {64, 64}, {2, 128}})
      for (int p : {0, 1, 2}) checkTrans<T>(r, c, 0, p);
    for (auto [a, b, c] : std::vector<std::array<int, 3>>{{2, 4, 8}, {4, 1, 32}, {8, 16, 2}, {1, 1, 1}, {16, 2, 1}})
      for (int p = 0; p < 6; ++p) checkTrans<T>(a, b, c, p);
    checkReshape<T>({8, 16}, {128});
    checkReshape<T>({128}, {8, 16});
    checkReshape<T>({128}, {64, 2});
    checkReshape<T>({4, 32}, {2, 8, 8});
    checkReshape<T>({2, 8, 8}, {16, 8});
    checkReshape<T>({2, 8, 8}, {32, 4});
    checkReshape<T>({1, 16}, {16, 1});
    checkReshape<T>({16, 1}, {1, 4, 4});
    checkReshape<T>({1}, {1, 1});
  }
};

TEST_F(CpuShapeOps, TransAndReshapeF32) { transAndReshapeEverything<float>(); }
TEST_F(CpuShapeOps, TransAndReshapeF16) { transAndReshapeEverything<f16>(); }
TEST_F(CpuShapeOps, TransAndReshapeBf16) { transAndReshapeEverything<bf16>(); }
TEST_F(CpuShapeOps, TransAndReshapeF64) { transAndReshapeEverything<double>(); }
TEST_F(CpuShapeOps, TransAndReshapeI32) { transAndReshapeEverything<int32_t>(); }
TEST_F(CpuShapeOps, TransAndReshapeI8) { transAndReshapeEverything<int8_t>(); }
TEST_F(CpuShapeOps, TransAndReshapeI64) { transAndReshapeEverything<int64_t>(); }
TEST_F(CpuShapeOps, TransAndReshapeBool) { transAndReshapeEverything<bool>(); }

/// Tensors of pointers: transposed and reshaped, then loaded through.
const auto &pointerKernel() {
  static const auto k = tile::kernel(
      "trans_reshape_ptr", [](Ptr<int32_t> in, Ptr<int32_t> outT, Ptr<int32_t> outR, Const<int> R, Const<int> C) {
        const int pairs = R.value() * C.value() / 2;
        Value rr = arange(0, R), cc = arange(0, C);
        Value ptrs = in + col(rr) * C + row(cc);                // [R, C]
        store(outT + col(cc) * R + row(rr), load(trans(ptrs))); // outT[c][r] = in[r][c]
        Value paired = reshape(ptrs, {pairs, 2});               // row-major: the same order
        store(outR + col(arange(0, pairs)) * 2 + row(arange(0, 2)), load(paired));
      });
  return k;
}

TEST_F(CpuShapeOps, PointerTensors) {
  for (auto [r, c] : std::vector<std::pair<int, int>>{{2, 1}, {8, 32}, {32, 8}, {16, 16}}) {
    std::vector<int32_t> in(size_t(r) * c), outT(in.size(), -1), outR(in.size(), -1);
    for (auto &v : in) v = int32_t(gen_());
    pointerKernel().launch({1}, cpuOptions(), in.data(), outT.data(), outR.data(), r, c);
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < c; ++j) ASSERT_EQ(outT[size_t(j) * r + i], in[size_t(i) * c + j]) << r << "x" << c;
    EXPECT_EQ(outR, in) << r << "x" << c;
  }
}

} // namespace
