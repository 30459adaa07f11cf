// The math library (tile/Math.h) on the CPU executor: every function on f32, f16, bf16 and f64
// inputs over every region (specials, subnormals, ties, random magnitudes) against long
// double, within the bounds docs/dsl.md gives (test/common/MathReference.h); exact functions
// bit for bit. The GPU runs the same kernels and checks (test/gpu/math_gpu_tests.cpp).
#include "cpu_test_util.h"

#include "MathKernels.h"

#include "tile/HalfBits.h"

using namespace tile;
using namespace tile::cputest;
using namespace tile::testutil;

namespace {

class CpuMath : public Seeded {
protected:
  /// Runs math_functions_<T> on n inputs and checks every result.
  template <class T> void check(const FloatFormat &fmt, int n) {
    auto draw = [&] { return double(uniform(0.f, 1.f)); };
    std::vector<long double> x = mathInputs(fmt, n, draw), y = mathSecondInputs(fmt, n, draw);
    std::vector<T> xs(x.size()), ys(y.size()), out(size_t(kMathFns) * n + 8);
    for (size_t i = 0; i < x.size(); ++i) xs[i] = toT<T>(x[i]), ys[i] = toT<T>(y[i]);
    for (T &o : out) o = toT<T>(7);
    tile::testing::mathFunctionsKernel<T>().launch({cdiv(n, 256)}, cpuOptions(), xs.data(), ys.data(), out.data(), n,
                                                   256);
    std::vector<long double> got(size_t(kMathFns) * n);
    for (size_t i = 0; i < got.size(); ++i) got[i] = fromT(out[i]);
    for (size_t i = got.size(); i < out.size(); ++i) ASSERT_EQ(fromT(out[i]), 7) << "past the end";
    MathReport report = checkMath(fmt, x, y, got);
    EXPECT_TRUE(report.failures.empty()) << report.failures;
    std::printf("worst error / bound: %s\n", report.table().c_str());
  }

  template <class T> static T toT(long double v) {
    if constexpr (std::is_same_v<T, f16>) return f16{halfBits(float(v))};
    else if constexpr (std::is_same_v<T, bf16>) return bf16{bf16Bits(float(v))};
    else return T(v);
  }
  static long double fromT(f16 v) { return halfFloat(v.bits); }
  static long double fromT(bf16 v) { return bf16Float(v.bits); }
  template <class T> static long double fromT(T v) { return v; }
};

TEST_F(CpuMath, F32) { check<float>(kF32, 3000); }
TEST_F(CpuMath, F16) { check<f16>(kF16, 2000); }
TEST_F(CpuMath, BF16) { check<bf16>(kBF16, 2000); }
TEST_F(CpuMath, F64) { check<double>(kF64, 2000); }

/// A bound that could not fail would prove nothing: one ulp off an exact function, or off
/// the bound of an accurate one, fails.
TEST_F(CpuMath, ChecksCatchWrongResults) {
  EXPECT_EQ(mathError(MathFn::Floor, kF32, 2.5L, 0, 2.0L), 0);
  EXPECT_GT(mathError(MathFn::Floor, kF32, 2.5L, 0, 2.0L + 0x1p-22L), 1);
  EXPECT_GT(mathError(MathFn::Trunc, kF32, -0.5L, 0, 0.0L), 1) << "-0 wanted";
  const long double s = std::sin(1.0L);
  EXPECT_LE(mathError(MathFn::Sin, kF32, 1.0L, 0, s + 2 * ulpAt(kF32, s)), 1);
  EXPECT_GT(mathError(MathFn::Sin, kF32, 1.0L, 0, s + 3 * ulpAt(kF32, s)), 1);
  EXPECT_GT(mathError(MathFn::Exp, kF32, NAN, 0, 1.0L), 1) << "NaN must stay NaN";
  EXPECT_GT(mathError(MathFn::Log, kF32, 2.0L, 0, NAN), 1) << "NaN never passes";
  EXPECT_EQ(mathError(MathFn::FastExp2, kF32, -130.0L, 0, 0.0L), 0) << "flushed";
  EXPECT_EQ(mathError(MathFn::FastLog2, kF32, 0x1p-140L, 0, -INFINITY), 0) << "a subnormal input reads as 0";
  EXPECT_GT(mathError(MathFn::Log2, kF32, 0x1p-140L, 0, -INFINITY), 1) << "log2 keeps subnormal inputs";
}

/// What the math functions refuse, at the user's line.
TEST_F(CpuMath, RefusesWrongTypes) {
  auto k = tile::kernel("sin_of_int", [](Ptr<int32_t> x, Ptr<float> y) { store(y, sin(load(x))); });
  int32_t x = 1;
  float y = 0;
  try {
    k.launch({1}, cpuOptions(), &x, &y);
    FAIL() << "sin of an i32 was accepted";
  } catch (const ProgramError &e) {
    EXPECT_NE(std::string(e.what()).find("cpu_math_tests.cpp:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tile::sin needs a floating-point operand, got i32"), std::string::npos)
        << e.what();
  }
  auto u = tile::kernel("umulhi_of_float", [](Ptr<float> x, Ptr<float> y) { store(y, umulhi(load(x), 2)); });
  float xf = 1;
  EXPECT_THROW(u.launch({1}, cpuOptions(), &xf, &y), ProgramError);
}

/// umulhi and cdiv on integers, exactly.
TEST_F(CpuMath, UmulhiAndCdiv) {
  auto k = tile::kernel("int_math", [](Ptr<int32_t> a, Ptr<int32_t> b, Ptr<int64_t> c, Ptr<int64_t> d,
                                       Ptr<int32_t> hi32, Ptr<int64_t> hi64, Ptr<int32_t> up, I32 n, Const<int> BLOCK) {
    Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
    Value mask = offs < n;
    Value x = load(a + offs, mask), y = load(b + offs, mask);
    store(hi32 + offs, umulhi(x, y), mask);
    store(hi64 + offs, umulhi(load(c + offs, mask), load(d + offs, mask)), mask);
    store(up + offs, cdiv(abs(x), maximum(abs(y), 1)), mask);
  });
  const int n = 1000;
  std::vector<int32_t> a(n), b(n), hi32(n), up(n);
  std::vector<int64_t> c(n), d(n), hi64(n);
  for (int i = 0; i < n; ++i) {
    a[i] = int32_t(uniformInt(INT32_MIN, INT32_MAX)), b[i] = int32_t(uniformInt(i % 2 ? -100 : INT32_MIN, INT32_MAX));
    c[i] = uniformInt(INT64_MIN, INT64_MAX), d[i] = uniformInt(INT64_MIN, INT64_MAX);
  }
  a[0] = -1, b[0] = -1, c[0] = -1, d[0] = -1; // the largest unsigned product
  k.launch({cdiv(n, 256)}, cpuOptions(), a.data(), b.data(), c.data(), d.data(), hi32.data(), hi64.data(), up.data(), n,
           256);
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(uint32_t(hi32[i]), uint32_t((uint64_t(uint32_t(a[i])) * uint32_t(b[i])) >> 32)) << i;
    ASSERT_EQ(uint64_t(hi64[i]), uint64_t((unsigned __int128)uint64_t(c[i]) * uint64_t(d[i]) >> 64)) << i;
    const int64_t x = std::abs(int64_t(a[i])) > INT32_MAX ? INT32_MIN : std::abs(int64_t(a[i]));
    const int64_t y = std::max<int64_t>(std::abs(int64_t(b[i])) > INT32_MAX ? INT32_MIN : std::abs(int64_t(b[i])), 1);
    if (x >= 0 && x + y - 1 <= INT32_MAX) { ASSERT_EQ(up[i], (x + y - 1) / y) << i; }
  }
}

} // namespace
