// The forms of a Ptr<T> launch argument that the compile-time check accepts still launch and
// address the right memory, on the CPU executor (pointers are host addresses) in checking
// mode: a C array (its first element), a void * and null, an integer address wrapped in
// tile::DeviceAddress, a buffer with ptr(). What is refused, and the compiler's message, is
// checked by test/lit/DSL/launch-arguments.cpp (ctest dsl_launch_arguments).
#include "tile/tile.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace tile;

namespace {

// The rule, pinned at compile time (a refused argument is a compile error at the launch).
using detail::bindable;
static_assert(bindable<Ptr<float>, float *>() && bindable<Ptr<float>, const float *>());
static_assert(bindable<Ptr<float>, float[16]>() && bindable<Ptr<float>, const float[16]>(), "arrays decay");
static_assert(bindable<Ptr<float>, void *>() && bindable<Ptr<float>, const void *>());
static_assert(bindable<Ptr<float>, std::nullptr_t>() && bindable<Ptr<float>, DeviceAddress>());
static_assert(bindable<Ptr<f16>, f16 *>() && bindable<Ptr<bool>, bool *>());
static_assert(!bindable<Ptr<float>, double *>(), "a double * for a Ptr<float>");
static_assert(!bindable<Ptr<f16>, uint16_t *>() && !bindable<Ptr<f16>, bf16 *>(), "half bits are typed");
static_assert(!bindable<Ptr<int64_t>, int32_t *>());
static_assert(!bindable<Ptr<float>, float[4][4]>(), "a 2-D array decays to a pointer to rows");
static_assert(!bindable<Ptr<float>, int>() && !bindable<Ptr<float>, uint64_t>() &&
                  !bindable<Ptr<float>, unsigned long long>(),
              "plain integers, CUdeviceptr included, are wrapped in DeviceAddress");

/// y = 2 x (+ bias when HAS_BIAS; otherwise bias is never touched and may be null). A new
/// kernel per test, not a static: its CPU code is freed when the test ends (the executor leaks
/// the code of kernels still alive at exit, which LeakSanitizer would report).
auto scaleKernel() {
  return tile::kernel("launch_args_scale",
                      [](Ptr<float> x, Ptr<float> y, Ptr<float> bias, I32 n, Const<int> HAS_BIAS, Const<int> BLOCK) {
                        Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
                        Value mask = offs < n;
                        Value v = load(x + offs, mask) * 2.0f;
                        if (HAS_BIAS.value()) v = v + load(bias + offs, mask);
                        store(y + offs, v, mask);
                      });
}

constexpr int kN = 50, kBlock = 16;

LaunchOptions checkedCpu() {
  LaunchOptions o;
  o.executor = Executor::CPU;
  o.check = true; // an access outside the registered buffers throws
  return o;
}

/// Like tile::rt::DeviceBuffer on the CPU executor: an untyped address behind ptr().
struct HostBuffer {
  std::vector<float> data;
  uint64_t ptr() const { return reinterpret_cast<uint64_t>(data.data()); }
};

std::vector<float> inputs() {
  std::vector<float> x(kN);
  for (int i = 0; i < kN; ++i) x[i] = float(i) - 7.5f;
  return x;
}

TEST(DslLaunchArgs, CArraysBindTheirFirstElement) {
  float x[kN], y[kN];
  const std::vector<float> in = inputs();
  for (int i = 0; i < kN; ++i) x[i] = in[i], y[i] = -1.f;
  const float (&cx)[kN] = x; // a const array too
  cpu::ScopedBuffer bx(x, sizeof x), by(y, sizeof y);
  scaleKernel().launch({cdiv(kN, kBlock)}, checkedCpu(), cx, y, nullptr, kN, 0, kBlock);
  for (int i = 0; i < kN; ++i) EXPECT_EQ(y[i], 2.f * in[i]) << "element " << i;
}

TEST(DslLaunchArgs, VoidPointersAndNull) {
  std::vector<float> x = inputs(), y(kN, -1.f), bias(kN, 0.25f);
  cpu::ScopedBuffer bx(x.data(), kN * 4), by(y.data(), kN * 4), bb(bias.data(), kN * 4);
  scaleKernel().launch({cdiv(kN, kBlock)}, checkedCpu(), static_cast<const void *>(x.data()),
                       static_cast<void *>(y.data()), bias.data(), kN, 1, kBlock);
  for (int i = 0; i < kN; ++i) EXPECT_EQ(y[i], 2.f * x[i] + 0.25f) << "element " << i;
}

TEST(DslLaunchArgs, DeviceAddressAndBuffersWithPtr) {
  std::vector<float> x = inputs();
  HostBuffer y{std::vector<float>(kN, -1.f)};
  cpu::ScopedBuffer bx(x.data(), kN * 4), by(y.data.data(), kN * 4);
  scaleKernel().launch({cdiv(kN, kBlock)}, checkedCpu(), DeviceAddress(reinterpret_cast<uintptr_t>(x.data())), y,
                       nullptr, kN, 0, kBlock);
  for (int i = 0; i < kN; ++i) EXPECT_EQ(y.data[i], 2.f * x[i]) << "element " << i;
}

} // namespace
