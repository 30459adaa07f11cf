// Autotuning where there is no GPU (the CPU executor): nothing is measured, the default
// candidate runs and no choice is written to disk; tile::Autotuned's argument handling; the
// library matmul's autotuned path (the library's own tile on the CPU) and every tile it
// would choose between, against float64. The GPU side: kernels_gpu_tests' MatmulAutotuneGpu.
#include "cpu_test_util.h"

#include "tile/Autotune.h"
#include "tile/Error.h"
#include "tile/kernels/DslLauncher.h"
#include "tile/kernels/MatmulAutotune.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

using namespace tile;
using namespace tile::testutil;
using namespace tile::cputest;
namespace tk = tile::kernels;
namespace fs = std::filesystem;

namespace {

// y = 2 x, one BLOCK of elements per program.
const auto &scaleKernel() {
  static const auto k = tile::kernel("autotune_scale", [](Ptr<float> x, Ptr<float> y, I32 n, Const<int> BLOCK) {
    Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
    Value mask = offs < n;
    store(y + offs, load(x + offs, mask) * 2.0f, mask);
  });
  return k;
}

const std::vector<TuneConfig> kScaleConfigs = {{{{"BLOCK", 64}}, 4, 0}, {{{"BLOCK", 256}}, 8, 2}};

// A private TILE_CACHE_DIR (where tuned choices would go) per test.
class CpuAutotune : public Seeded {
protected:
  void SetUp() override {
    Seeded::SetUp();
    char tmpl[] = "/tmp/tile-cpu-autotune-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    setenv("TILE_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("TILE_CACHE_DIR");
    fs::remove_all(dir_);
    Seeded::TearDown();
  }
  int tunedEntries() const {
    int n = 0;
    for (const auto &f : fs::directory_iterator(dir_)) n += f.path().filename().string().rfind("autotune-", 0) == 0;
    return n;
  }
  std::string dir_;
};

// Runs the scale kernel through `tuned` on the CPU executor; returns the configs the grid
// function was asked for (one per run of the kernel).
template <class T>
std::vector<TuneConfig> launchScale(T &tuned, int64_t n, std::vector<float> &x, std::vector<float> &y) {
  std::vector<TuneConfig> asked;
  LaunchOptions o;
  o.executor = Executor::CPU;
  tuned.launch(
      [&](const TuneConfig &c) {
        asked.push_back(c);
        return Grid(cdiv(n, c["BLOCK"]));
      },
      o, x.data(), y.data(), n, /*BLOCK: tuned*/ 0);
  return asked;
}

// float64 C = A·B of row-major operands given as floats, and Σ|a·b| per element (what
// the error is bounded by: closeToMagnitude).
struct MatmulRef {
  std::vector<double> value, magnitude;
};
MatmulRef matmulRef(const std::vector<float> &a, const std::vector<float> &b, int64_t m, int64_t n, int64_t k) {
  MatmulRef ref{std::vector<double>(size_t(m * n)), std::vector<double>(size_t(m * n))};
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0, mag = 0;
      for (int64_t q = 0; q < k; ++q) {
        const double p = double(a[size_t(i * k + q)]) * b[size_t(q * n + j)];
        s += p, mag += std::fabs(p);
      }
      ref.value[size_t(i * n + j)] = s;
      ref.magnitude[size_t(i * n + j)] = mag;
    }
  return ref;
}

} // namespace

TEST_F(CpuAutotune, DefaultCandidateRunsUnmeasured) {
  const int64_t n = 1000;
  std::vector<float> x = randomFloats(n), y = poisoned(n);
  auto tuned = tile::autotune(scaleKernel(), {"BLOCK"}, kScaleConfigs, keyOnPow2({2}));
  std::vector<TuneConfig> asked = launchScale(tuned, n, x, y);
  ASSERT_EQ(asked.size(), 1u); // the launch itself: no candidate was run to be timed
  EXPECT_EQ(asked[0], kScaleConfigs[0]);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 2.0f * x[i]) << i;
  ASSERT_NE(tuned.lastTuner(), nullptr);
  EXPECT_EQ(tuned.lastTuner()->lastSource(), rt::TuneSource::Default);
  EXPECT_EQ(tuned.benchmarks(), 0);
  EXPECT_EQ(tunedEntries(), 0);
  // Again: still nothing measured.
  y = poisoned(n);
  EXPECT_EQ(launchScale(tuned, n, x, y).size(), 1u);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 2.0f * x[i]) << i;
}

TEST_F(CpuAutotune, DeclaredDefaultCandidate) {
  const int64_t n = 777;
  std::vector<float> x = randomFloats(n), y = poisoned(n);
  AutotuneOptions o;
  o.defaultConfig = 1;
  auto tuned = tile::autotune(scaleKernel(), {"BLOCK"}, kScaleConfigs, keyOn({2}), o);
  std::vector<TuneConfig> asked = launchScale(tuned, n, x, y);
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0], kScaleConfigs[1]); // BLOCK 256 with 8 warps and 2 stages (ignored on the CPU)
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], 2.0f * x[i]) << i;
}

TEST(CpuAutotuneArgs, KeysFromLaunchArguments) {
  const std::vector<int64_t> args = {4096, 8192, 1000, 3};
  EXPECT_EQ(keyOn({2})(args), (TuneKey{1000}));
  EXPECT_EQ(keyOnPow2({2, 3})(args), (TuneKey{1024, 4}));
  EXPECT_EQ(tk::matmulTuneKey(1000, 17, 64), (TuneKey{1024, 32, 64}));
}

TEST(CpuAutotuneArgs, ConfigsMustNameTheKernelsConsts) {
  EXPECT_THROW(tile::autotune(scaleKernel(), {}, kScaleConfigs, keyOn({2})), tile::ArgumentError);
  EXPECT_THROW(tile::autotune(scaleKernel(), {"BLOCK", "X"}, kScaleConfigs, keyOn({2})), tile::ArgumentError);
  std::vector<TuneConfig> wrong = {{{{"BLOK", 64}}, 4, 0}};
  EXPECT_THROW(tile::autotune(scaleKernel(), {"BLOCK"}, wrong, keyOn({2})), tile::ArgumentError);
}

// The matmul's candidate tiles are the declaration's: per path, the unit-stride-only tiles only
// where their facts hold, the general tiles always.
TEST(CpuAutotuneArgs, MatmulCandidatesComeFromTheDeclaration) {
  for (int e = 0; e < 3; ++e) {
    const auto epilogue = tk::MatmulEpilogue(e);
    auto fast = tk::detail::matmulTuneConfigs<tile::f16>(epilogue, false, true);
    auto general = tk::detail::matmulTuneConfigs<tile::f16>(epilogue, false, false);
    EXPECT_GT(fast.size(), general.size());
    EXPECT_FALSE(general.empty());
    for (const TuneConfig &c : general) EXPECT_NE(std::find(fast.begin(), fast.end(), c), fast.end()) << c.str();
    for (const TuneConfig &c : fast) {
      // Declared by Matmul, or by MatmulTma (which Matmul::launch runs for row-major operands).
      bool declared = false;
      for (const tk::Variant &v : tk::MatmulF16::variants())
        declared |= v.consts[0] == c["BM"] && v.consts[1] == c["BN"] && v.consts[2] == c["BK"] && v.consts[4] == e &&
                    v.numWarps == c.numWarps;
      for (const tk::Variant &v : tk::MatmulTmaF16::variants())
        declared |= v.consts[0] == c["BM"] && v.consts[1] == c["BN"] && v.consts[2] == c["BK"] && v.consts[4] == e &&
                    v.numWarps == c.numWarps && v.numStages == c.numStages;
      EXPECT_TRUE(declared) << c.str();
    }
  }
  EXPECT_EQ(tk::detail::matmulTuneConfigs<float>(tk::MatmulEpilogue::None, false, true).size(), 1u); // FMA: one tile
}

class CpuAutotuneMatmul : public CpuAutotune {
protected:
  tk::DslLauncher cpu{Executor::CPU};
};

// On the CPU the autotuned launch is the library's own (nothing to measure), on fast and
// ragged shapes alike, and it writes no tuned entry.
TEST_F(CpuAutotuneMatmul, AutotunedLaunchMatchesTheReference) {
  for (auto [m, n, k] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{48, 64, 32}, {37, 45, 70}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
    std::vector<float> a = randomFloats(size_t(m * k)), b = randomFloats(size_t(k * n)), bias(size_t(n), 0.0f),
                       c = poisoned(size_t(m * n));
    tk::launchMatmulAutotuned<float>(cpu, {.a = a.data(),
                                           .b = b.data(),
                                           .c = c.data(),
                                           .bias = bias.data(),
                                           .m = m,
                                           .n = n,
                                           .k = k,
                                           .strideAm = k,
                                           .strideAk = 1,
                                           .strideBk = n,
                                           .strideBn = 1,
                                           .strideCm = n,
                                           .strideCn = 1});
    const MatmulRef ref = matmulRef(a, b, m, n, k);
    EXPECT_TRUE(closeToMagnitude(c, ref.value, ref.magnitude, 1e-6, "matmul"));
  }
  EXPECT_EQ(tunedEntries(), 0);
}

// Every f16 tile the tuner may choose computes the same product on the CPU executor (the
// GPU test checks them on the GPU): the candidate list is launchable as declared.
TEST_F(CpuAutotuneMatmul, EveryF16CandidateMatchesTheReference) {
  const int64_t m = 160, n = 144, k = 80; // 16-divisible, ragged against the 128 and 64 tiles
  std::vector<float> a = randomFloats(size_t(m * k), -1.f, 1.f), b = randomFloats(size_t(k * n), -1.f, 1.f);
  std::vector<uint16_t> ah(a.size()), bh(b.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = halfToFloat(ah[i] = toHalf(a[i]));
  for (size_t i = 0; i < b.size(); ++i) b[i] = halfToFloat(bh[i] = toHalf(b[i]));
  std::vector<float> bias(size_t(n), 0.0f);
  const MatmulRef ref = matmulRef(a, b, m, n, k);
  for (const TuneConfig &cfg : tk::detail::matmulTuneConfigs<tile::f16>(tk::MatmulEpilogue::None, false, true)) {
    SCOPED_TRACE(cfg.str());
    std::vector<float> c = poisoned(size_t(m * n));
    const tk::MatmulConfig tileCfg = tk::detail::matmulConfigOf(cfg);
    tk::MatmulF16::launch(cpu,
                          {.a = ah.data(),
                           .b = bh.data(),
                           .c = c.data(),
                           .bias = bias.data(),
                           .m = m,
                           .n = n,
                           .k = k,
                           .strideAm = k,
                           .strideAk = 1,
                           .strideBk = n,
                           .strideBn = 1,
                           .strideCm = n,
                           .strideCn = 1},
                          nullptr, &tileCfg);
    EXPECT_TRUE(closeToMagnitude(c, ref.value, ref.magnitude, 1e-5, "matmul"));
  }
}
