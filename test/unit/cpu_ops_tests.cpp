// The CPU executor on what the library kernels do not exercise: 2-D tiles with masks,
// reductions along either axis (sum, max, min, argmax, argmin), loops with carried
// tensors, branches, colliding atomics, f16/bf16 rounding, i32 wrapping and division.
// The kernels of test/kernels/TestKernels.h are the ones the GPU tests run too.
#include "cpu_test_util.h"

#include "TestKernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace tile;
using namespace tile::cputest;
namespace tt = tile::testing;

namespace {

class CpuOps : public Seeded {};

TEST_F(CpuOps, Transpose2DWithMasks) {
  for (auto [m, n] : std::vector<std::pair<int, int>>{{1, 1}, {32, 32}, {33, 31}, {100, 7}, {5, 300}, {257, 129}}) {
    auto in = randomFloats(size_t(m) * n);
    auto out = poisoned(in.size() + 16);
    tt::transposeKernel().launch({cdiv(m, 32), cdiv(n, 16)}, cpuOptions(), in.data(), out.data(), m, n, 32, 16);
    for (int r = 0; r < m; ++r)
      for (int c = 0; c < n; ++c)
        ASSERT_EQ(bitsOf(out[size_t(c) * m + r]), bitsOf(in[size_t(r) * n + c]))
            << m << "x" << n << " at " << r << "," << c;
    for (size_t i = in.size(); i < out.size(); ++i) ASSERT_EQ(bitsOf(out[i]), kPoisonBits) << "past the end: " << i;
  }
}

TEST_F(CpuOps, RowSumMaxArgmax) {
  struct Shape {
    int m, n, bm, bn;
  };
  std::vector<Shape> shapes = {{1, 1, 16, 128},    {16, 128, 16, 128},   {37, 100, 16, 128},
                               {3, 1000, 1, 1024}, {129, 1024, 1, 1024}, {5, 17, 4, 32}};
  for (Shape s : shapes) {
    SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.n));
    auto in = randomFloats(size_t(s.m) * s.n);
    if (s.n > 3) in[size_t(s.m - 1) * s.n + 2] = in[size_t(s.m - 1) * s.n + 3] = 100.f; // a tie: first index wins
    auto sums = poisoned(s.m), maxima = poisoned(s.m);
    std::vector<int32_t> arg(s.m, -7);
    tt::rowStatsKernel().launch({cdiv(s.m, s.bm)}, cpuOptions(), in.data(), sums.data(), maxima.data(), arg.data(), s.m,
                                s.n, s.bm, s.bn);
    tt::RowStats ref = tt::rowStatsReference(in, s.m, s.n);
    EXPECT_EQ(arg, ref.argmax);
    const std::vector<double> magnitude = tt::rowStatsReference(absolute(in), s.m, s.n).sums;
    EXPECT_TRUE(closeToMagnitude(sums, ref.sums, magnitude, 1e-5, "row sums"));
    EXPECT_TRUE(closeTo(maxima, ref.maxima, 0, "row maxima"));
  }
}

TEST_F(CpuOps, Rank3ReductionsOnEveryAxis) {
  struct Case {
    int d0, d1, d2, b0, b1, b2, axis, warps;
  };
  for (Case c : std::vector<Case>{{4, 128, 4, 4, 128, 4, 1, 4},
                                  {8, 32, 16, 8, 32, 16, 0, 4},
                                  {7, 30, 9, 8, 32, 16, 1, 4},
                                  {8, 32, 16, 8, 32, 16, 2, 4},
                                  {2, 3, 200, 2, 4, 256, 2, 8},
                                  {16, 16, 16, 16, 16, 16, 0, 8},
                                  {1, 64, 2, 1, 64, 2, 1, 1}}) {
    SCOPED_TRACE(std::to_string(c.d0) + "x" + std::to_string(c.d1) + "x" + std::to_string(c.d2) + " axis " +
                 std::to_string(c.axis));
    auto in = randomFloats(size_t(c.d0) * c.d1 * c.d2);
    const int kept = (c.d0 * c.d1 * c.d2) / (c.axis == 0 ? c.d0 : c.axis == 1 ? c.d1 : c.d2);
    auto sums = poisoned(kept), maxima = poisoned(kept);
    std::vector<int32_t> arg(kept, -7);
    tt::reduce3dKernel().launch({1}, cpuOptions(c.warps), in.data(), sums.data(), maxima.data(), arg.data(), c.d0, c.d1,
                                c.d2, c.b0, c.b1, c.b2, c.axis);
    tt::RowStats ref = tt::reduce3dReference(in, c.d0, c.d1, c.d2, c.axis);
    EXPECT_EQ(arg, ref.argmax);
    const std::vector<double> magnitude = tt::reduce3dReference(absolute(in), c.d0, c.d1, c.d2, c.axis).sums;
    EXPECT_TRUE(closeToMagnitude(sums, ref.sums, magnitude, 1e-5, "sums"));
    EXPECT_TRUE(closeTo(maxima, ref.maxima, 0, "maxima"));
  }
}

TEST_F(CpuOps, ColumnMin) {
  for (auto [m, n] : std::vector<std::pair<int, int>>{{1, 1}, {64, 32}, {63, 33}, {17, 1000}}) {
    auto in = randomFloats(size_t(m) * n);
    auto got = poisoned(n);
    tt::colMinKernel().launch({cdiv(n, 32)}, cpuOptions(), in.data(), got.data(), m, n, 64, 32);
    for (int c = 0; c < n; ++c) {
      float best = in[c];
      for (int r = 1; r < m; ++r) best = std::min(best, in[size_t(r) * n + c]);
      ASSERT_EQ(got[c], best) << "column " << c << " of " << m << "x" << n;
    }
  }
}

/// Argmax/argmin along axis 0 (a sequential reduction per column), ties to the first.
const auto &colArgKernel() {
  static const auto k = tile::kernel(
      "col_arg", [](Ptr<float> in, Ptr<int32_t> amax, Ptr<int32_t> amin, I32 m, I32 n, Const<int> BM, Const<int> BN) {
        Value rows = arange(0, BM);
        Value cols = program_id(0) * BN + arange(0, BN);
        Value mask = (col(rows) < m) & (row(cols) < n);
        Value x = load(in + col(rows) * n + row(cols), mask, 0.0f);
        store(amax + cols, argmax(where(mask, x, -1e30f), 0), cols < n);
        store(amin + cols, argmin(where(mask, x, 1e30f), 0), cols < n);
      });
  return k;
}

TEST_F(CpuOps, ColumnArgmaxArgmin) {
  for (auto [m, n] : std::vector<std::pair<int, int>>{{1, 1}, {8, 16}, {7, 33}, {64, 100}}) {
    std::vector<float> in(size_t(m) * n);
    for (float &v : in) v = float(uniformInt(-3, 3)); // many ties
    std::vector<int32_t> amax(n, -7), amin(n, -7);
    colArgKernel().launch({cdiv(n, 16)}, cpuOptions(), in.data(), amax.data(), amin.data(), m, n, 64, 16);
    for (int c = 0; c < n; ++c) {
      int bmax = 0, bmin = 0;
      for (int r = 1; r < m; ++r) {
        if (in[size_t(r) * n + c] > in[size_t(bmax) * n + c]) bmax = r;
        if (in[size_t(r) * n + c] < in[size_t(bmin) * n + c]) bmin = r;
      }
      ASSERT_EQ(amax[c], bmax) << "column " << c;
      ASSERT_EQ(amin[c], bmin) << "column " << c;
    }
  }
}

TEST_F(CpuOps, HistogramWithCollidingAtomics) {
  for (int n : {1, 1000, 1025, 1 << 20}) {
    const int bins = 37;
    std::vector<int32_t> values(n);
    for (int32_t &v : values) v = int32_t(uniformInt(0, bins - 1));
    std::vector<int32_t> got(bins, 0), ref(bins, 0);
    tt::histogramKernel().launch({cdiv(n, 1024)}, cpuOptions(), values.data(), got.data(), n, 1024);
    for (int32_t v : values) ++ref[v];
    EXPECT_EQ(got, ref) << "n " << n;
  }
}

/// Float atomics return the old values; a colliding float sum.
const auto &atomicFloatKernel() {
  static const auto k =
      tile::kernel("atomic_float", [](Ptr<float> x, Ptr<float> total, Ptr<float> old, I32 n, Const<int> BLOCK) {
        Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
        Value mask = offs < n;
        Value prev = atomic_add(total + offs % 4, load(x + offs, mask), mask);
        store(old + offs, prev, mask);
      });
  return k;
}

TEST_F(CpuOps, FloatAtomicsReturnOldValues) {
  const int n = 1000;
  std::vector<float> x(n);
  for (float &v : x) v = float(uniformInt(1, 8)); // exact sums in any order
  std::vector<float> total(4, 0.f), old = poisoned(n);
  atomicFloatKernel().launch({cdiv(n, 128)}, cpuOptions(), x.data(), total.data(), old.data(), n, 128);
  std::vector<double> ref(4, 0);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(old[i], float(ref[i % 4])) << "old value of element " << i << " (row-major order)";
    ref[i % 4] += x[i];
  }
  for (int b = 0; b < 4; ++b) EXPECT_EQ(total[b], float(ref[b]));
}

TEST_F(CpuOps, HalfAndBfloat16Rounding) {
  for (int n : {1, 7, 1024, 4097}) {
    std::vector<uint16_t> x(n);
    for (int i = 0; i < n; ++i) x[i] = toHalf(uniform(-4.f, 4.f) * 300.f);
    // Specials: zeros, a denormal, the largest half, infinities, NaN.
    const uint16_t specials[] = {0x0000, 0x8000, 0x0001, 0x03ff, 0x7bff, 0x7c00, 0xfc00, 0x7e00};
    for (int i = 0; i < n && i < 8; ++i) x[i] = specials[i];
    const float scale = 1.37f;
    std::vector<uint16_t> y(n + 8, 0xdead), z(n + 8, 0xdead);
    tt::halfScaleKernel().launch({cdiv(n, 1024)}, cpuOptions(), reinterpret_cast<f16 *>(x.data()),
                                 reinterpret_cast<f16 *>(y.data()), reinterpret_cast<bf16 *>(z.data()), scale, n, 1024);
    for (int i = 0; i < n; ++i) {
      float v = halfToFloat(x[i]) * scale;
      if (std::isnan(v)) {
        ASSERT_TRUE(isHalfNaN(y[i]) && isBf16NaN(z[i])) << "NaN element " << i;
        continue;
      }
      ASSERT_EQ(y[i], toHalf(v)) << "f16 element " << i << " from " << v;
      ASSERT_EQ(z[i], toBf16(v)) << "bf16 element " << i << " from " << v;
    }
    for (int i = n; i < n + 8; ++i) ASSERT_EQ(y[i], 0xdead);
  }
}

/// fma on halves and on bfloat16s: computed in float and rounded once to the operands' type.
/// Rounding the product to the type first (two roundings) gives other bits on some elements,
/// which the check counts so that the inputs can tell the two apart.
TEST_F(CpuOps, HalfAndBfloat16Fma) {
  auto f16p = [](std::vector<uint16_t> &v) { return reinterpret_cast<f16 *>(v.data()); };
  for (int n : {1, 1000, 4097}) {
    std::vector<uint16_t> a(n), b(n), c(n);
    for (int i = 0; i < n; ++i) {
      a[i] = toHalf(uniform(-8.f, 8.f));
      b[i] = toHalf(uniform(-8.f, 8.f));
      c[i] = toHalf(uniform(-64.f, 64.f));
    }
    std::vector<uint16_t> y(n + 8, 0xdead), z(n + 8, 0xdead);
    tt::smallFloatFmaKernel().launch({cdiv(n, 1024)}, cpuOptions(), f16p(a), f16p(b), f16p(c), f16p(y),
                                     reinterpret_cast<bf16 *>(z.data()), n, 1024);
    int twoRoundingsDiffer = 0;
    for (int i = 0; i < n; ++i) {
      auto [half, bfloat] = smallFloatFma(a[i], b[i], c[i]);
      ASSERT_EQ(y[i], half) << "f16 element " << i;
      ASSERT_EQ(z[i], bfloat) << "bf16 element " << i;
      float product = halfToFloat(toHalf(halfToFloat(a[i]) * halfToFloat(b[i])));
      twoRoundingsDiffer += toHalf(product + halfToFloat(c[i])) != half;
    }
    for (int i = n; i < n + 8; ++i) ASSERT_EQ(y[i], 0xdead) << "past the end";
    if (n >= 1000) { EXPECT_GT(twoRoundingsDiffer, 0) << "the inputs never tell one rounding from two"; }
  }
}

/// fast_exp2: 2^x, results below 2^-126 flushed to +0 (as the GPU's ex2.approx.ftz.f32); exp2
/// beside it keeps them. The CPU computes both from one exact exp2.
TEST_F(CpuOps, FastExp2FlushesWhatExp2Keeps) {
  for (int n : {1, 1000, 4097}) {
    std::vector<float> x = tile::testutil::fastExp2Inputs(n, [&](float lo, float hi) { return uniform(lo, hi); });
    std::vector<float> fast(n + 8, 7.f), exact(n + 8, 7.f);
    tt::fastExp2Kernel().launch({cdiv(n, 1024)}, cpuOptions(), x.data(), fast.data(), exact.data(), n, 1024);
    int flushedOnlyByFast = 0;
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(tile::testutil::fastExp2Admits(x[i], fast[i], 0x1p-23)) << "x " << x[i] << ": " << fast[i];
      if (std::isnan(x[i])) ASSERT_TRUE(std::isnan(exact[i]));
      else ASSERT_FLOAT_EQ(exact[i], std::exp2(x[i])) << "x " << x[i];
      flushedOnlyByFast += fast[i] == 0.f && exact[i] > 0.f;
    }
    for (int i = n; i < n + 8; ++i) ASSERT_EQ(fast[i], 7.f) << "past the end";
    if (n >= 1000) { EXPECT_GT(flushedOnlyByFast, 0) << "no input where the flush shows"; }
  }
}

/// f32 -> f16 / bf16 -> f32 on every interesting float: rounding ties, denormals, overflow.
const auto &roundTripKernel() {
  static const auto k =
      tile::kernel("round_trip", [](Ptr<float> x, Ptr<f16> h, Ptr<bf16> bh, Ptr<float> back, I32 n, Const<int> BLOCK) {
        Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
        Value mask = offs < n;
        Value v = load(x + offs, mask);
        store(h + offs, cast(v, DType::f16), mask);
        store(bh + offs, cast(v, DType::bf16), mask);
        store(back + offs, cast(cast(v, DType::bf16), DType::f32) + cast(cast(v, DType::f16), DType::f32), mask);
      });
  return k;
}

TEST_F(CpuOps, Float16RoundTripBitExact) {
  std::vector<float> x;
  for (uint32_t bits : {0x00000000u, 0x80000000u, 0x00000001u, 0x00800000u, 0x33800000u, 0x33000000u, 0x33000001u,
                        0x387fc000u, 0x38800000u, 0x477fe000u, 0x477ff000u, 0x477fefffu, 0x7f7fffffu, 0x7f800000u,
                        0xff800000u, 0x3f808000u, 0x3f818000u, 0x3f80c000u, 0x7f7f8000u})
    x.push_back([&] {
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }());
  for (int i = 0; i < 5000; ++i) {
    uint32_t bits = static_cast<uint32_t>(gen_());
    if ((bits & 0x7f800000) == 0x7f800000) bits &= 0xbfffffff; // finite
    float f;
    std::memcpy(&f, &bits, 4);
    x.push_back(i % 2 ? f : uniform(-70000.f, 70000.f));
  }
  int n = static_cast<int>(x.size());
  std::vector<uint16_t> h(n), bh(n);
  std::vector<float> back = poisoned(n);
  roundTripKernel().launch({cdiv(n, 256)}, cpuOptions(), x.data(), reinterpret_cast<f16 *>(h.data()),
                           reinterpret_cast<bf16 *>(bh.data()), back.data(), n, 256);
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(h[i], toHalf(x[i])) << "f16 of " << x[i] << " (element " << i << ")";
    ASSERT_EQ(bh[i], toBf16(x[i])) << "bf16 of " << x[i] << " (element " << i << ")";
    uint32_t b32 = uint32_t(bh[i]) << 16;
    float bf;
    std::memcpy(&bf, &b32, 4);
    float expect = bf + halfToFloat(h[i]);
    if (std::isnan(expect)) ASSERT_TRUE(std::isnan(back[i]));
    else ASSERT_EQ(back[i], expect) << "element " << i;
  }
}

/// f64 and integers to f16/bf16 round once, to nearest even, from the source value (as
/// PTX's cvt.rn does: no detour through f32 or f64); f16/bf16 to f64 and to i32 are exact.
const auto &wideConversionsKernel() {
  static const auto k =
      tile::kernel("wide_conversions", [](Ptr<double> x, Ptr<int64_t> big, Ptr<int32_t> small, Ptr<f16> h, Ptr<bf16> bh,
                                          Ptr<f16> hBig, Ptr<bf16> bhBig, Ptr<bf16> bhSmall, Ptr<double> back,
                                          Ptr<int32_t> toInt, I32 n, Const<int> BLOCK) {
        Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
        Value mask = offs < n;
        Value v = load(x + offs, mask);
        store(h + offs, cast(v, DType::f16), mask);
        store(bh + offs, cast(v, DType::bf16), mask);
        Value i = load(big + offs, mask);
        store(hBig + offs, cast(i, DType::f16), mask);
        store(bhBig + offs, cast(i, DType::bf16), mask);
        Value s = load(small + offs, mask);
        store(bhSmall + offs, cast(s, DType::bf16), mask);
        store(back + offs, cast(cast(v, DType::f16), DType::f64) + cast(cast(v, DType::bf16), DType::f64), mask);
        store(toInt + offs, cast(cast(s, DType::bf16), DType::i32) + cast(cast(s, DType::f16), DType::i32), mask);
      });
  return k;
}

/// The f16 (mantissa 10, exponents -14..15) or bf16 (7, -126..127) bits nearest to `v`,
/// ties to even, computed in long double (exact for every f64 and i64).
uint16_t nearestSmallFloat(long double v, bool half) {
  const int mant = half ? 10 : 7, emin = half ? -14 : -126, emax = half ? 15 : 127;
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0, inf = half ? 0x7c00 : 0x7f80;
  long double a = std::fabs(v);
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);
  e = std::max(e - 1, emin);
  long double ulp = std::ldexp(1.0L, e - mant);
  long double r = std::nearbyint(a / ulp) * ulp; // the default rounding mode: nearest even
  if (r >= std::ldexp(1.0L, emax + 1)) return sign | inf;
  return sign | (half ? toHalf(float(r)) : toBf16(float(r))); // r is exact in float
}

TEST_F(CpuOps, WideConversionsRoundOnce) {
  std::vector<double> x = {0.0,
                           -0.0,
                           65504.0,
                           65519.99,
                           65520.0,
                           -65520.0,
                           std::ldexp(1.0, -25),
                           std::ldexp(1.0, -25) + std::ldexp(1.0, -60),
                           3 * std::ldexp(1.0, -26),
                           1e-300,
                           1e300,
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN()};
  // Ties of each format, and ties plus a bit below f32's precision: rounding through f32
  // first would see an exact tie and round to even, which is wrong.
  for (int k = 0; k < 40; ++k) {
    double m = std::ldexp(1.0 + double(uniformInt(0, 1023)) / 1024, int(uniformInt(-14, 15)));
    x.push_back(m + std::ldexp(m, -11));
    x.push_back(m + std::ldexp(m, -11) + std::ldexp(m, -40));
    x.push_back(-(m + std::ldexp(m, -8) + std::ldexp(m, -40)));
    x.push_back(m + std::ldexp(m, -8));
  }
  while (x.size() < 3000) {
    double m = std::ldexp(std::uniform_real_distribution<double>(1, 2)(gen_), int(uniformInt(-140, 130)));
    x.push_back(uniformInt(0, 1) ? m : -m);
  }
  const int n = int(x.size());
  std::vector<int64_t> big(n);
  std::vector<int32_t> small(n);
  for (int i = 0; i < n; ++i) {
    int shift = int(uniformInt(0, 62));
    big[i] = static_cast<int64_t>(gen_() >> (63 - shift)) * (uniformInt(0, 1) ? 1 : -1);
    small[i] = int32_t(uniformInt(-60000, 60000));
  }
  // i64 ties of bf16 above 2^53, exact and one above: f64 alone would lose the "one above".
  const int64_t ties[] = {(int64_t(1) << 60) + (int64_t(1) << 52),
                          (int64_t(1) << 60) + (int64_t(1) << 52) + 1,
                          -((int64_t(1) << 62) + (int64_t(3) << 54) + 1),
                          std::numeric_limits<int64_t>::min(),
                          std::numeric_limits<int64_t>::max(),
                          65519,
                          65520,
                          -65520};
  for (size_t i = 0; i < std::size(ties); ++i) big[i] = ties[i];

  std::vector<uint16_t> h(n, 0xdead), bh(n, 0xdead), hBig(n, 0xdead), bhBig(n, 0xdead), bhSmall(n, 0xdead);
  std::vector<double> back(n, std::numeric_limits<double>::quiet_NaN());
  std::vector<int32_t> toInt(n, -7);
  auto f16p = [](std::vector<uint16_t> &v) { return reinterpret_cast<f16 *>(v.data()); };
  auto bf16p = [](std::vector<uint16_t> &v) { return reinterpret_cast<bf16 *>(v.data()); };
  wideConversionsKernel().launch({cdiv(n, 256)}, cpuOptions(), x.data(), big.data(), small.data(), f16p(h), bf16p(bh),
                                 f16p(hBig), bf16p(bhBig), bf16p(bhSmall), back.data(), toInt.data(), n, 256);
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE("element " + std::to_string(i) + ": " + std::to_string(x[i]) + ", " + std::to_string(big[i]));
    if (std::isnan(x[i])) {
      ASSERT_TRUE(isHalfNaN(h[i]) && isBf16NaN(bh[i]) && std::isnan(back[i]));
    } else {
      ASSERT_EQ(h[i], nearestSmallFloat(x[i], true));
      ASSERT_EQ(bh[i], nearestSmallFloat(x[i], false));
      uint32_t b32 = uint32_t(bh[i]) << 16;
      float bf;
      std::memcpy(&bf, &b32, 4);
      double expect = double(halfToFloat(h[i])) + double(bf);
      if (std::isnan(expect)) ASSERT_TRUE(std::isnan(back[i]));
      else ASSERT_EQ(back[i], expect);
    }
    ASSERT_EQ(hBig[i], nearestSmallFloat(static_cast<long double>(big[i]), true));
    ASSERT_EQ(bhBig[i], nearestSmallFloat(static_cast<long double>(big[i]), false));
    ASSERT_EQ(bhSmall[i], nearestSmallFloat(small[i], false));
    uint32_t s32 = uint32_t(bhSmall[i]) << 16;
    float sf;
    std::memcpy(&sf, &s32, 4);
    ASSERT_EQ(toInt[i], int32_t(sf) + int32_t(halfToFloat(nearestSmallFloat(small[i], true))));
  }
}

TEST_F(CpuOps, LoopWithCarriedTensorAndBranch) {
  for (auto [n, block] : std::vector<std::pair<int, int>>{{1, 256}, {1000, 256}, {77, 32}, {4096, 32}}) {
    const int reps = int(uniformInt(0, 8));
    auto x = randomFloats(n);
    auto out = poisoned(n);
    tt::loopBranchKernel().launch({cdiv(n, block)}, cpuOptions(), x.data(), out.data(), n, reps, block);
    std::vector<double> ref = tt::loopBranchReference(x, block, reps);
    // x + Σ (i + k) cancels where x is near -Σ: bounded by |x| + Σ (i + k).
    std::vector<double> magnitude = absolute(tt::loopBranchReference(absolute(x), block, reps));
    EXPECT_TRUE(closeToMagnitude(out, ref, magnitude, 1e-6,
                                 "loop/branch n " + std::to_string(n) + " reps " + std::to_string(reps)));
  }
}

/// Two tensors carried through a loop that swaps them (a parallel assignment), a row
/// reduction and a broadcast inside the loop, and an if yielding a tensor and a scalar.
const auto &swapLoopKernel() {
  static const auto k =
      tile::kernel("swap_loop", [](Ptr<float> x, Ptr<float> out, I32 iters, Const<int> M, Const<int> N) {
        Value idx = col(arange(0, M)) * N + row(arange(0, N));
        const int mn = M.value() * N.value();
        Value a = load(x + idx), b = load(x + mn + idx);
        auto r = for_range(0, iters, 1, {a, b, zeros({M}, DType::f32)}, [&](Value, std::vector<Value> c) {
          Value rowMax = max(c[0], 1);     // [M]
          Value next = c[1] - col(rowMax); // [M, N] - [M, 1]
          return std::vector<Value>{next, c[0], c[2] + rowMax};
        });
        auto picked = if_then_else(
            iters > 2, [&] { return std::vector<Value>{r[0] + 1.0f, sum(r[2])}; },
            [&] { return std::vector<Value>{r[1], constant(0.0, DType::f32)}; });
        store(out + idx, picked[0] * 2.0f + picked[1]);
        store(out + mn + idx, r[1]);
      });
  return k;
}

TEST_F(CpuOps, ParallelAssignmentOfCarriedTensors) {
  const int M = 4, N = 8;
  for (int iters : {0, 1, 2, 3, 6}) {
    auto x = randomFloats(2 * M * N);
    auto out = poisoned(2 * M * N);
    swapLoopKernel().launch({1}, cpuOptions(), x.data(), out.data(), iters, M, N);
    std::vector<double> a(x.begin(), x.begin() + M * N), b(x.begin() + M * N, x.end()), acc(M, 0.0);
    for (int it = 0; it < iters; ++it) {
      std::vector<double> next(M * N);
      for (int i = 0; i < M; ++i) {
        double m = -INFINITY;
        for (int j = 0; j < N; ++j) m = std::max(m, a[i * N + j]);
        for (int j = 0; j < N; ++j) next[i * N + j] = b[i * N + j] - m;
        acc[i] += m;
      }
      b.swap(a);
      a.swap(next);
    }
    double s = 0;
    for (double v : acc) s += v;
    std::vector<double> ref(2 * M * N);
    for (int i = 0; i < M * N; ++i) {
      ref[i] = iters > 2 ? (a[i] + 1.0) * 2.0 + s : b[i] * 2.0;
      ref[M * N + i] = b[i];
    }
    EXPECT_TRUE(closeTo(out, ref, 1e-6, "iters " + std::to_string(iters)));
  }
}

/// i32 arithmetic wraps like the GPU's; division truncates; a zero divisor does not trap.
const auto &intKernel() {
  static const auto k =
      tile::kernel("int_ops", [](Ptr<int32_t> a, Ptr<int32_t> b, Ptr<int32_t> out, I32 n, Const<int> BLOCK) {
        Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
        Value mask = offs < n;
        Value x = load(a + offs, mask), y = load(b + offs, mask);
        store(out + 4 * offs, x * y + 2147483647, mask);
        store(out + 4 * offs + 1, x / where(y == 0, 1, y), mask);
        store(out + 4 * offs + 2, x % where(y == 0, 1, y), mask);
        store(out + 4 * offs + 3, (x << 3) ^ (y >> 2), mask);
      });
  return k;
}

TEST_F(CpuOps, Int32WrapsAndTruncates) {
  const int n = 3000;
  std::vector<int32_t> a(n), b(n), out(4 * n, 0x5a5a5a5a);
  for (int i = 0; i < n; ++i) {
    a[i] = int32_t(uniformInt(INT32_MIN, INT32_MAX));
    b[i] = int32_t(i % 3 == 0 ? uniformInt(-9, 9) : uniformInt(INT32_MIN, INT32_MAX));
  }
  intKernel().launch({cdiv(n, 512)}, cpuOptions(), a.data(), b.data(), out.data(), n, 512);
  for (int i = 0; i < n; ++i) {
    int32_t y = b[i] == 0 ? 1 : b[i];
    int32_t wrapped = int32_t(uint32_t(a[i]) * uint32_t(b[i]) + 2147483647u);
    int32_t q = (a[i] == INT32_MIN && y == -1) ? INT32_MIN : a[i] / y;
    int32_t r = (a[i] == INT32_MIN && y == -1) ? 0 : a[i] % y;
    int32_t bits = int32_t(uint32_t(a[i]) << 3) ^ (b[i] >> 2);
    ASSERT_EQ(out[4 * i], wrapped) << i;
    ASSERT_EQ(out[4 * i + 1], q) << i;
    ASSERT_EQ(out[4 * i + 2], r) << i;
    ASSERT_EQ(out[4 * i + 3], bits) << i;
  }
}

} // namespace

namespace {

/// Scalar memory ops: a masked load with `other`, a masked store, a scalar atomic, and
/// bool tensors in memory (one byte each).
const auto &scalarMemKernel() {
  static const auto k = tile::kernel(
      "scalar_mem", [](Ptr<float> x, Ptr<float> y, Ptr<int32_t> counter, Ptr<bool> flags, I32 n, Const<int> BLOCK) {
        Value pid = program_id(0);
        Value v = load(x + pid, pid < n, -1.0f);
        store(y + pid, v * 2.0f + cast(num_programs(0), DType::f32), pid % 2 == 0);
        atomic_add(counter, 1);
        Value offs = pid * BLOCK + arange(0, BLOCK);
        Value in = load(flags + offs);
        store(flags + offs, (!in) | (offs % 3 == 0));
      });
  return k;
}

TEST_F(CpuOps, ScalarMemoryOpsAndBools) {
  const int n = 5, grid = 8, block = 16;
  std::vector<float> x = randomFloats(n), y(grid, 7.f);
  int32_t counter = 0;
  std::vector<uint8_t> flags(grid * block);
  for (size_t i = 0; i < flags.size(); ++i) flags[i] = uint8_t(uniformInt(0, 1));
  std::vector<uint8_t> before = flags;
  scalarMemKernel().launch({grid}, cpuOptions(), x.data(), y.data(), &counter, reinterpret_cast<bool *>(flags.data()),
                           n, block);
  EXPECT_EQ(counter, grid);
  for (int p = 0; p < grid; ++p) {
    float v = p < n ? x[p] : -1.f;
    EXPECT_EQ(y[p], p % 2 == 0 ? v * 2.f + float(grid) : 7.f) << "program " << p;
  }
  for (size_t i = 0; i < flags.size(); ++i) EXPECT_EQ(flags[i], uint8_t(!before[i] || i % 3 == 0)) << i;
}

TEST_F(CpuOps, ThreadsAndExecutorSelection) {
  // Auto resolves to the CPU here (no GPU) or where TILE_EXECUTOR=cpu says so.
  setenv("TILE_EXECUTOR", "cpu", 1);
  EXPECT_EQ(resolveExecutor(Executor::Auto), Executor::CPU);
  EXPECT_EQ(resolveExecutor(Executor::GPU), Executor::GPU);
  setenv("TILE_EXECUTOR", "tpu", 1);
  EXPECT_THROW(resolveExecutor(Executor::Auto), tile::ArgumentError);
  setenv("TILE_EXECUTOR", "cpu", 1);
  // Several threads: colliding atomics stay exact.
  setenv("TILE_CPU_THREADS", "3", 1);
  const int n = 100000, bins = 7;
  std::vector<int32_t> values(n), got(bins, 0), ref(bins, 0);
  for (int32_t &v : values) v = int32_t(uniformInt(0, bins - 1));
  LaunchOptions autoOpts; // Executor::Auto
  tt::histogramKernel().launch({cdiv(n, 256)}, autoOpts, values.data(), got.data(), n, 256);
  unsetenv("TILE_CPU_THREADS");
  unsetenv("TILE_EXECUTOR");
  for (int32_t v : values) ++ref[v];
  EXPECT_EQ(got, ref);
}

} // namespace

TEST_F(CpuOps, HalfBfloat16AndBoolScalarParameters) {
  for (bool flag : {true, false}) {
    const int n = 1000;
    const float h = 1.3f, b = -2.7f; // rounded at launch: to half and to bfloat16
    auto x = randomFloats(n);
    auto out = poisoned(n);
    tt::scalarArgsKernel().launch({cdiv(n, 256)}, cpuOptions(), x.data(), out.data(), h, b, flag, n, 256);
    double hr = halfToFloat(toHalf(h)), br = 0;
    uint32_t bbits = uint32_t(toBf16(b)) << 16;
    float bf;
    std::memcpy(&bf, &bbits, 4);
    br = bf;
    std::vector<double> ref(n);
    std::vector<double> magnitude(n); // the terms' sizes: x * h cancels against b
    for (int i = 0; i < n; ++i) {
      ref[i] = flag ? x[i] * hr + br : x[i] - hr;
      magnitude[i] = flag ? std::fabs(x[i] * hr) + std::fabs(br) : std::fabs(x[i]) + std::fabs(hr);
    }
    EXPECT_TRUE(closeToMagnitude(out, ref, magnitude, 1e-6, flag ? "flag set" : "flag clear"));
  }
}
