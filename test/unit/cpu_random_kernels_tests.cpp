// Random valid DSL programs (cpu_random_kernels.h) on the CPU executor against a naive
// float64 evaluation of the same DAG. TILE_RANDOM_SEED=<s> fixes the first seed (program
// i uses seed s + i) and TILE_RANDOM_COUNT=<n> the number of programs (default 200); a
// mismatch prints its seed and the program.
#include "cpu_random_kernels.h"
#include "cpu_test_util.h"

#include <algorithm>
#include <chrono>

using namespace tile;
using namespace tile::cputest;
using tile::randomkernels::RandomCase;

namespace {

/// |out - expected| <= kRelTol * magnitude (see RandomCase::magnitude): about 1000 float32
/// roundings of the largest intermediate, far above what a correct program accumulates
/// and far below any wrong result (which is off by the values themselves).
constexpr double kRelTol = tile::randomkernels::kTolerance;

::testing::AssertionResult matches(const std::vector<float> &got, const std::vector<double> &want,
                                   const std::vector<double> &mag, size_t tail, const char *what) {
  for (size_t i = 0; i < want.size(); ++i) {
    double err = std::fabs(double(got[i]) - want[i]);
    if (!std::isfinite(got[i]) || !(err <= kRelTol * mag[i] + 1e-30))
      return ::testing::AssertionFailure()
             << what << "[" << i << "] = " << got[i] << (bitsOf(got[i]) == kPoisonBits ? " (never written)" : "")
             << ", expected " << want[i] << " (error bound " << kRelTol * mag[i] << ")";
  }
  for (size_t i = want.size(); i < want.size() + tail; ++i)
    if (bitsOf(got[i]) != kPoisonBits) return ::testing::AssertionFailure() << what << ": wrote past the end at " << i;
  return ::testing::AssertionSuccess();
}

TEST(CpuRandomKernels, MatchFloat64Reference) {
  const char *seedEnv = std::getenv("TILE_RANDOM_SEED");
  const char *countEnv = std::getenv("TILE_RANDOM_COUNT");
  uint64_t base =
      seedEnv ? std::strtoull(seedEnv, nullptr, 10) : (uint64_t(std::random_device{}()) << 20) ^ std::random_device{}();
  int count = countEnv ? std::atoi(countEnv) : 200;
  int failures = 0, attention = 0, fma = 0;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < count && failures < 5; ++i) {
    uint64_t seed = base + uint64_t(i);
    RandomCase c = tile::randomkernels::makeRandomCase(seed);
    attention += c.describe().find("= attention(") != std::string::npos;
    fma += c.describe().find("fma(") != std::string::npos;
    const size_t tail = 16;
    std::vector<float> out = poisoned(c.expected.size() + tail), out2 = poisoned(c.expectedRows.size() + tail);
    if (c.outZeroed()) std::fill(out.begin(), out.begin() + ptrdiff_t(c.expected.size()), 0.f);
    std::string replay = "random program, seed " + std::to_string(seed) +
                         " (replay: TILE_RANDOM_SEED=" + std::to_string(seed) + " TILE_RANDOM_COUNT=1)\n" +
                         c.describe();
    try {
      c.launch(cpuOptions(), c.inputs[0].data(), c.inputs[1].data(), c.inputs[2].data(), c.inputs[3].data(),
               c.inputs[4].data(), out.data(), out2.data(), c.in2Half.data());
    } catch (const std::exception &e) {
      ADD_FAILURE() << replay << e.what();
      ++failures;
      continue;
    }
    auto a = matches(out, c.expected, c.magnitude, tail, "out");
    auto b = matches(out2, c.expectedRows, c.magnitudeRows, tail, "out2");
    if (!a || !b) {
      ADD_FAILURE() << replay << (a ? "" : a.message()) << (b ? "" : b.message());
      ++failures;
    }
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%d random programs (%d with an attention block, %d with an fma) from seed %llu in %.1f s\n", count,
              attention, fma, static_cast<unsigned long long>(base), s);
}

} // namespace
