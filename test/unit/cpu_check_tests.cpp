// Checking mode of the CPU executor: an unmasked out-of-bounds access or a read of
// never-written memory stops the launch with a ProgramError naming the DSL source line,
// the program id, the element index and the address; correct kernels pass untouched.
#include "cpu_test_util.h"

#include "tile/kernels/LayerNorm.h"
#include "tile/kernels/Elementwise.h"
#include "tile/kernels/Matmul.h"
#include "tile/kernels/Softmax.h"
#include "TestKernels.h"

#include <cinttypes>
#include <cstdlib>

using namespace tile;
using namespace tile::cputest;

namespace {

int gLoadLine = 0, gStoreLine = 0;

/// y = 2 * x, BLOCK elements per program, no mask: the grid must fit the buffers.
const auto &unmaskedKernel() {
  static const auto k = tile::kernel("unmasked", [](Ptr<float> x, Ptr<float> y, Const<int> BLOCK) {
    Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
    Value v = load(x + offs);
    gLoadLine = __LINE__ - 1; // the statement above
    store(y + offs, v * 2.0f);
    gStoreLine = __LINE__ - 1; // the statement above
  });
  return k;
}

/// The message of the ProgramError `fn` throws ("" if none).
template <class F> std::string errorOf(F &&fn) {
  try {
    fn();
  } catch (const ProgramError &e) { return e.what(); }
  return "";
}

std::string hex(const void *p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIxPTR, reinterpret_cast<uintptr_t>(p));
  return buf;
}

class CpuCheck : public Seeded {};

TEST_F(CpuCheck, OutOfBoundsLoadNamesLineProgramElementAddress) {
  std::vector<float> x(100, 1.f), y = poisoned(128);
  cpu::ScopedBuffer bx(x.data(), x.size() * 4), by(y.data(), y.size() * 4, /*initialized=*/false);
  std::string msg = errorOf([&] { unmaskedKernel().launch({2}, cpuOptions(4, true), x.data(), y.data(), 64); });
  ASSERT_FALSE(msg.empty()) << "no error";
  EXPECT_NE(msg.find("cpu_check_tests.cpp:" + std::to_string(gLoadLine) + ":"), std::string::npos) << msg;
  EXPECT_LT(msg.find("cpu_check_tests.cpp:"), msg.find(": error:")) << "the location leads: " << msg;
  EXPECT_NE(msg.find("out-of-bounds load"), std::string::npos) << msg;
  EXPECT_NE(msg.find("program (1, 0, 0)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("element 36"), std::string::npos) << msg;
  EXPECT_NE(msg.find(hex(x.data() + 100)), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
  // Program 0 ran completely; nothing of program 1 was stored after the bad access.
  for (int i = 0; i < 64; ++i) EXPECT_EQ(y[i], 2.f);
}

TEST_F(CpuCheck, OutOfBoundsStore) {
  std::vector<float> x(128, 1.f), y = poisoned(128);
  cpu::ScopedBuffer bx(x.data(), x.size() * 4), by(y.data(), 70 * 4);
  std::string msg = errorOf([&] { unmaskedKernel().launch({2}, cpuOptions(4, true), x.data(), y.data(), 64); });
  EXPECT_NE(msg.find("cpu_check_tests.cpp:" + std::to_string(gStoreLine) + ":"), std::string::npos) << msg;
  EXPECT_NE(msg.find("out-of-bounds store"), std::string::npos) << msg;
  EXPECT_NE(msg.find("element 6"), std::string::npos) << msg;
  EXPECT_EQ(bitsOf(y[70]), kPoisonBits) << "the refused store must not happen";
}

TEST_F(CpuCheck, UnregisteredMemory) {
  std::vector<float> x(64, 1.f), y(64);
  cpu::ScopedBuffer by(y.data(), y.size() * 4);
  std::string msg = errorOf([&] { unmaskedKernel().launch({1}, cpuOptions(4, true), x.data(), y.data(), 64); });
  EXPECT_NE(msg.find("out-of-bounds load"), std::string::npos) << msg;
  EXPECT_NE(msg.find("element 0"), std::string::npos) << msg;
}

TEST_F(CpuCheck, UninitialisedReadThenInitialised) {
  std::vector<float> x(64, 1.f), y(64), z(64);
  cpu::ScopedBuffer bx(x.data(), x.size() * 4, /*initialized=*/false), by(y.data(), y.size() * 4, false),
      bz(z.data(), z.size() * 4, false);
  std::string msg = errorOf([&] { unmaskedKernel().launch({1}, cpuOptions(4, true), x.data(), y.data(), 64); });
  EXPECT_NE(msg.find("uninitialised"), std::string::npos) << msg;
  EXPECT_NE(msg.find(":" + std::to_string(gLoadLine) + ":"), std::string::npos) << msg;
  // The host fills x: now x -> y works, and y (written by the kernel) -> z too.
  cpu::markInitialized(x.data(), x.size() * 4);
  unmaskedKernel().launch({1}, cpuOptions(4, true), x.data(), y.data(), 64);
  unmaskedKernel().launch({1}, cpuOptions(4, true), y.data(), z.data(), 64);
  EXPECT_EQ(z[63], 4.f);
}

TEST_F(CpuCheck, MaskedAccessesPass) {
  // Row kernels with ragged masks and scalar stores touch exactly the registered bytes.
  for (int64_t n : {1, 17, 1000}) {
    const int64_t rows = 3;
    auto x = randomFloats(rows * n), w = randomFloats(n), b = randomFloats(n);
    std::vector<float> y(rows * n), mean(rows), rstd(rows);
    cpu::ScopedBuffer s1(x.data(), x.size() * 4), s2(w.data(), n * 4), s3(b.data(), n * 4),
        s4(y.data(), y.size() * 4, false), s5(mean.data(), rows * 4, false), s6(rstd.data(), rows * 4, false);
    tile::kernels::RowConfig p = tile::kernels::layerNormConfig(n);
    EXPECT_EQ(errorOf([&] {
                tile::kernels::layerNormForwardKernel().launch(
                    {rows}, cpuOptions(p.numWarps, true), x.data(), y.data(), w.data(), b.data(), mean.data(),
                    rstd.data(), static_cast<int32_t>(n), static_cast<int32_t>(n), 1e-5f, p.block);
              }),
              "")
        << "n " << n;
    for (float v : y) ASSERT_TRUE(std::isfinite(v));
  }
}

TEST_F(CpuCheck, OutOfBoundsAtomic) {
  std::vector<int32_t> values = {0, 1, 2, 37, 4}, bins(37, 0);
  cpu::ScopedBuffer bv(values.data(), values.size() * 4), bb(bins.data(), bins.size() * 4);
  std::string msg = errorOf(
      [&] { tile::testing::histogramKernel().launch({1}, cpuOptions(4, true), values.data(), bins.data(), 5, 16); });
  EXPECT_NE(msg.find("out-of-bounds atomic"), std::string::npos) << msg;
  EXPECT_NE(msg.find("element 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("TestKernels.h:"), std::string::npos) << msg;
}

TEST_F(CpuCheck, EnvironmentTurnsItOn) {
  std::vector<float> x(10, 1.f), y(64);
  cpu::ScopedBuffer bx(x.data(), x.size() * 4), by(y.data(), y.size() * 4);
  setenv("TILE_CPU_CHECK", "1", 1);
  std::string msg = errorOf([&] { unmaskedKernel().launch({1}, cpuOptions(4, false), x.data(), y.data(), 64); });
  unsetenv("TILE_CPU_CHECK");
  EXPECT_NE(msg.find("element 10"), std::string::npos) << msg;
}

} // namespace
