// The math library (tile/Math.h) on the GPU: the kernels and checks of the CPU executor's
// cpu_math_tests.cpp (test/common/MathReference.h) on f32, f16, bf16 and f64, compiled ahead of
// time: libdevice's functions within their documented bounds, the exact functions bit for
// bit the correctly rounded result (as the CPU executor gives), the fast_* instructions
// within the PTX ISA's bounds and flushing as the CPU executor emulates them. Prints each
// function's worst error as a fraction of its bound (docs/dsl.md quotes them).
#include "SeededGpuTest.h"
#include "test_kernels_aot.h"

#include "tile/HalfBits.h"
#include "tile/runtime/Memory.h"

#include <gtest/gtest.h>

#include "../common/MathReference.h"

#include <random>

using namespace tile;
using namespace tile::rt;
using namespace tile::testutil;

namespace {

/// `v` as element type T of format `fmt` (uint16_t: the bits of an f16 or a bf16).
template <class T> T store(const FloatFormat &fmt, long double v) {
  if constexpr (std::is_same_v<T, uint16_t>)
    return fmt.mantissa == kBF16.mantissa ? bf16Bits(float(v)) : halfBits(float(v));
  else return T(v);
}
template <class T> long double load(const FloatFormat &fmt, T v) {
  if constexpr (std::is_same_v<T, uint16_t>) return fmt.mantissa == kBF16.mantissa ? bf16Float(v) : halfFloat(v);
  else return v;
}

class MathGpu : public tile::testing::SeededGpuTest {
protected:
  template <class T, class Launch> void checkOnGpu(const FloatFormat &fmt, int n, Launch launch) {
    std::uniform_real_distribution<double> unit(0, 1);
    auto draw = [&] { return unit(gen_); };
    std::vector<long double> x = mathInputs(fmt, n, draw), y = mathSecondInputs(fmt, n, draw);
    std::vector<T> xs, ys;
    for (size_t i = 0; i < x.size(); ++i) xs.push_back(store<T>(fmt, x[i])), ys.push_back(store<T>(fmt, y[i]));
    auto dx = DeviceBuffer::fromHost(xs), dy = DeviceBuffer::fromHost(ys);
    DeviceBuffer dout(size_t(kMathFns) * n * sizeof(T));
    dout.fillBytes(0xFF); // poison: NaN in every format
    launch(AotLaunchConfig{Dim3{unsigned((n + 255) / 256), 1, 1}, 4, nullptr}, dx.ptr(), dy.ptr(), dout.ptr(), n);
    std::vector<T> out = dout.toHost<T>(size_t(kMathFns) * n);
    std::vector<long double> got;
    for (T v : out) got.push_back(load(fmt, v));
    MathReport report = checkMath(fmt, x, y, got);
    EXPECT_TRUE(report.failures.empty()) << report.failures;
    std::printf("worst error / bound: %s\n", report.table().c_str());
  }
};

} // namespace

TEST_F(MathGpu, F32) {
  checkOnGpu<float>(kF32, 3000, [](auto... a) { aot_test::math_functions_f32(a..., 256); });
}
TEST_F(MathGpu, F16) {
  checkOnGpu<uint16_t>(kF16, 2000, [](auto... a) { aot_test::math_functions_f16(a..., 256); });
}
TEST_F(MathGpu, BF16) {
  checkOnGpu<uint16_t>(kBF16, 2000, [](auto... a) { aot_test::math_functions_bf16(a..., 256); });
}
TEST_F(MathGpu, F64) {
  checkOnGpu<double>(kF64, 2000, [](auto... a) { aot_test::math_functions_f64(a..., 256); });
}
