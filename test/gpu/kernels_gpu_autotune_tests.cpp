// The autotuned library matmul on a real GPU (ctest label `gpu`, part of kernels_gpu_tests; each test
// skips with the reason where there is no GPU): every candidate tile and the tuned launch against a
// float64 reference on shapes ragged against the tiles, the choice kept in memory (a second launch
// measures nothing) and on disk (a fresh tuner reads it back). Runs on the AOT kernels (runtime only).
// Fresh random inputs every run (TILE_TEST_SEED=<n> replays), C poisoned with NaN before each launch.
#include "tile/Error.h"
#include "tile/kernels/AotLauncher.h"
#include "tile/kernels/MatmulAutotune.h"

#include "tile/runtime/Autotune.h"
#include "tile/runtime/Context.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Memory.h"

#include <gtest/gtest.h>

#include "../common/Numerics.h"
#include "SeededGpuTest.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace tile::rt;
namespace tk = tile::kernels;

namespace {

tk::AotLauncher gAotTuned; // the precompiled variants, found by kernel name

enum class Input { F32, TF32, F16, BF16 };
const char *inputName(Input i) {
  return i == Input::F32 ? "f32" : i == Input::TF32 ? "tf32" : i == Input::F16 ? "f16" : "bf16";
}

struct Shape {
  int64_t m, n, k;
};

// Row-major A [m, k], B [k, n], C [m, n] and bias [n] on the device, with the float values the kernel
// reads (16-bit inputs rounded to their type; TF32 rounding happens inside the kernel).
struct Problem {
  Input input;
  Shape s;
  std::vector<float> a, b, bias; // what the kernel reads, as floats
  DeviceBuffer da, db, dc, dbias;
};

// Fixture: skips without a GPU, seeds the inputs, and keeps the tuners' disk entries in a private
// directory (TILE_CACHE_DIR, which the process-wide tuners read too; each ctest runs in its own process).
class MatmulAutotuneGpu : public tile::testing::SeededGpuTest {
protected:
  void SetUp() override {
    SeededGpuTest::SetUp();
    if (IsSkipped()) return;
    char tmpl[] = "/tmp/tile-autotune-gpu-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    if (const char *old = std::getenv("TILE_CACHE_DIR")) oldCacheDir_ = old;
    setenv("TILE_CACHE_DIR", dir_.c_str(), 1);
    unsetenv("TILE_FORCE_RECOMPILE");
  }
  void TearDown() override {
    SeededGpuTest::TearDown();
    if (dir_.empty()) return;
    std::filesystem::remove_all(dir_);
    if (oldCacheDir_) setenv("TILE_CACHE_DIR", oldCacheDir_->c_str(), 1);
    else unsetenv("TILE_CACHE_DIR");
  }

  AutotuneOptions options() const {
    AutotuneOptions o;
    o.cacheDir = dir_;
    return o;
  }

  std::vector<float> randomValues(size_t count, Input input) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(count);
    for (float &x : v) {
      x = u(gen_);
      if (input == Input::F16) x = tile::testutil::halfToFloat(tile::halfBits(x));
      if (input == Input::BF16) {
        uint32_t bits = uint32_t(tile::bf16Bits(x)) << 16;
        std::memcpy(&x, &bits, 4);
      }
    }
    return v;
  }
  DeviceBuffer upload(const std::vector<float> &v, Input input) {
    if (input == Input::F32 || input == Input::TF32) return DeviceBuffer::fromHost(v);
    std::vector<uint16_t> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) h[i] = input == Input::F16 ? tile::halfBits(v[i]) : tile::bf16Bits(v[i]);
    return DeviceBuffer::fromHost(h); // exact: the values were rounded to the type already
  }
  Problem make(Input input, Shape s) {
    Problem p{input,
              s,
              randomValues(size_t(s.m * s.k), input),
              randomValues(size_t(s.k * s.n), input),
              randomValues(size_t(s.n), Input::F32),
              {},
              {},
              {},
              {}};
    p.da = upload(p.a, input);
    p.db = upload(p.b, input);
    p.dbias = DeviceBuffer::fromHost(p.bias);
    p.dc = DeviceBuffer(size_t(s.m * s.n) * 4);
    return p;
  }

  // C against float64 of the inputs the kernel reads: each element within tol of the sum of magnitudes
  // Σ|a·b| + |bias| (which cancellation or relu cannot shrink). 16-bit inputs are exact in the
  // reference, so only f32 accumulation remains (1e-4 is ~10x its worst case at these k); TF32 rounds
  // each input to an 11-bit significand inside the kernel (2^-10 per product, as BatchedMatmulCheck.h).
  ::testing::AssertionResult matches(Problem &p, tk::MatmulEpilogue e, const std::string &what) {
    const Shape s = p.s;
    std::vector<float> c = p.dc.toHost<float>(size_t(s.m * s.n));
    const double tol = p.input == Input::TF32 ? 1.2e-3 : 1e-4;
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j) {
        double ref = 0, mag = 0;
        for (int64_t q = 0; q < s.k; ++q) {
          double prod = double(p.a[size_t(i * s.k + q)]) * double(p.b[size_t(q * s.n + j)]);
          ref += prod, mag += std::fabs(prod);
        }
        if (e != tk::MatmulEpilogue::None) ref += p.bias[size_t(j)], mag += std::fabs(p.bias[size_t(j)]);
        if (e == tk::MatmulEpilogue::BiasRelu) ref = std::max(ref, 0.0);
        const double got = c[size_t(i * s.n + j)];
        if (!(std::fabs(got - ref) <= tol * mag + 1e-30)) // NaN (the poison: unwritten) fails too
          return ::testing::AssertionFailure()
                 << what << " " << inputName(p.input) << " " << s.m << "x" << s.n << "x" << s.k << ": C[" << i << ", "
                 << j << "] = " << got << ", float64 " << ref << " (tolerance " << tol * mag << ")";
      }
    return ::testing::AssertionSuccess();
  }

  void poison(Problem &p) { p.dc.fillBytes(0xFF); }

  // One matmul launch of `p` through the autotuned path (tuner null: the process-wide one).
  void launchTuned(Problem &p, tk::MatmulEpilogue e, Autotuner *tuner = nullptr) {
    const Shape s = p.s;
    const bool tf32 = p.input == Input::TF32;
    auto go = [&]<class T>() {
      tk::launchMatmulAutotuned<T>(gAotTuned,
                                   {.a = p.da,
                                    .b = p.db,
                                    .c = p.dc,
                                    .bias = p.dbias,
                                    .m = s.m,
                                    .n = s.n,
                                    .k = s.k,
                                    .strideAm = s.k,
                                    .strideAk = 1,
                                    .strideBk = s.n,
                                    .strideBn = 1,
                                    .strideCm = s.n,
                                    .strideCn = 1,
                                    .epilogue = e,
                                    .tf32 = tf32},
                                   nullptr, tuner);
    };
    if (p.input == Input::F16) go.template operator()<tile::f16>();
    else if (p.input == Input::BF16) go.template operator()<tile::bf16>();
    else go.template operator()<float>();
    Context::get().synchronize();
  }

  std::string dir_;
  std::optional<std::string> oldCacheDir_;
};

// Shapes whose m, n and k are multiples of 16 (the unit-stride tiles may run, so the tuner chooses
// among all of them) but ragged against every tile, and shapes that are not (the general tiles).
const Shape kFastShapes[] = {{1008, 400, 272}, {48, 1040, 96}, {16, 16, 16}};
const Shape kRaggedShapes[] = {{1001, 333, 77}, {3, 5, 7}};

} // namespace

TEST_F(MatmulAutotuneGpu, EveryCandidateMatchesTheReference) {
  for (Input input : {Input::F16, Input::BF16, Input::TF32, Input::F32})
    for (tk::MatmulEpilogue e : {tk::MatmulEpilogue::None, tk::MatmulEpilogue::BiasRelu}) {
      Problem p = make(input, kFastShapes[0]);
      const bool tf32 = input == Input::TF32;
      auto configs = input == Input::F16    ? tk::detail::matmulTuneConfigs<tile::f16>(e, tf32, true)
                     : input == Input::BF16 ? tk::detail::matmulTuneConfigs<tile::bf16>(e, tf32, true)
                                            : tk::detail::matmulTuneConfigs<float>(e, tf32, true);
      ASSERT_FALSE(configs.empty());
      for (const TuneConfig &cfg : configs) {
        poison(p);
        const tk::MatmulConfig tileCfg = tk::detail::matmulConfigOf(cfg);
        const Shape s = p.s;
        auto go = [&]<class T>() {
          tk::Matmul<T>::launch(gAotTuned,
                                {.a = p.da,
                                 .b = p.db,
                                 .c = p.dc,
                                 .bias = p.dbias,
                                 .m = s.m,
                                 .n = s.n,
                                 .k = s.k,
                                 .strideAm = s.k,
                                 .strideAk = 1,
                                 .strideBk = s.n,
                                 .strideBn = 1,
                                 .strideCm = s.n,
                                 .strideCn = 1,
                                 .epilogue = e,
                                 .tf32 = tf32},
                                nullptr, &tileCfg);
        };
        if (input == Input::F16) go.template operator()<tile::f16>();
        else if (input == Input::BF16) go.template operator()<tile::bf16>();
        else go.template operator()<float>();
        Context::get().synchronize();
        EXPECT_TRUE(matches(p, e, "candidate " + cfg.str()));
      }
    }
}

TEST_F(MatmulAutotuneGpu, TunedMatchesTheReferenceOnRaggedShapes) {
  setenv("TILE_AUTOTUNE_VERBOSE", "1", 1); // the timings and choices go to the log
  for (Input input : {Input::F16, Input::BF16, Input::TF32, Input::F32})
    for (tk::MatmulEpilogue e : {tk::MatmulEpilogue::None, tk::MatmulEpilogue::BiasRelu}) { // Bias: DiskEntry...
      for (const Shape &s : kFastShapes) {
        Problem p = make(input, s);
        poison(p);
        launchTuned(p, e);
        EXPECT_TRUE(matches(p, e, "autotuned (first launch)"));
        poison(p);
        launchTuned(p, e); // the remembered choice
        EXPECT_TRUE(matches(p, e, "autotuned (second launch)"));
      }
      for (const Shape &s : kRaggedShapes) {
        Problem p = make(input, s);
        poison(p);
        launchTuned(p, e);
        EXPECT_TRUE(matches(p, e, "autotuned"));
      }
    }
  unsetenv("TILE_AUTOTUNE_VERBOSE");
}

TEST_F(MatmulAutotuneGpu, SecondLaunchUsesTheCachedChoice) {
  auto tuner = tk::makeMatmulAutotuner<tile::f16>(gAotTuned, tk::MatmulEpilogue::None, false, true, options());
  ASSERT_GT(tuner->configs().size(), 1u) << "nothing to choose between";
  Problem p = make(Input::F16, {512, 512, 512});
  poison(p);
  launchTuned(p, tk::MatmulEpilogue::None, tuner.get());
  EXPECT_EQ(tuner->lastSource(), TuneSource::Benchmark);
  EXPECT_EQ(tuner->benchmarks(), 1);
  EXPECT_TRUE(matches(p, tk::MatmulEpilogue::None, "first launch"));
  const TuneConfig chosen = tuner->choose(tk::matmulTuneKey(512, 512, 512), nullptr, nullptr, true);
  std::printf("autotuned matmul_f16 512x512x512 on %s: %s\n", Context::get().info().name.c_str(), chosen.str().c_str());

  poison(p);
  launchTuned(p, tk::MatmulEpilogue::None, tuner.get());
  EXPECT_EQ(tuner->lastSource(), TuneSource::Memory);
  EXPECT_EQ(tuner->benchmarks(), 1); // nothing measured again
  EXPECT_TRUE(matches(p, tk::MatmulEpilogue::None, "second launch"));

  // Another shape of the same class (m rounds up to 512 too).
  Problem q = make(Input::F16, {496, 512, 512});
  poison(q);
  launchTuned(q, tk::MatmulEpilogue::None, tuner.get());
  EXPECT_EQ(tuner->lastSource(), TuneSource::Memory);
  EXPECT_EQ(tuner->benchmarks(), 1);
  EXPECT_TRUE(matches(q, tk::MatmulEpilogue::None, "same class"));
}

TEST_F(MatmulAutotuneGpu, DiskEntryIsReusedByAFreshTuner) {
  const TuneKey key = tk::matmulTuneKey(256, 768, 256);
  const std::string device = Context::get().info().name;
  TuneConfig chosen;
  {
    auto first = tk::makeMatmulAutotuner<tile::f16>(gAotTuned, tk::MatmulEpilogue::Bias, false, true, options());
    Problem p = make(Input::F16, {256, 768, 256});
    poison(p);
    launchTuned(p, tk::MatmulEpilogue::Bias, first.get());
    EXPECT_EQ(first->benchmarks(), 1);
    EXPECT_TRUE(matches(p, tk::MatmulEpilogue::Bias, "tuning launch"));
    chosen = first->choose(key, nullptr, nullptr, true);
    EXPECT_TRUE(std::filesystem::exists(first->entryPath(key, device))) << first->entryPath(key, device);
  }
  auto fresh = tk::makeMatmulAutotuner<tile::f16>(gAotTuned, tk::MatmulEpilogue::Bias, false, true, options());
  Problem p = make(Input::F16, {256, 768, 256});
  poison(p);
  launchTuned(p, tk::MatmulEpilogue::Bias, fresh.get());
  EXPECT_EQ(fresh->lastSource(), TuneSource::Disk);
  EXPECT_EQ(fresh->benchmarks(), 0);
  EXPECT_EQ(fresh->choose(key, nullptr, nullptr, true), chosen);
  EXPECT_TRUE(matches(p, tk::MatmulEpilogue::Bias, "fresh tuner"));
}

TEST_F(MatmulAutotuneGpu, TunerOfAnotherSpaceIsRefused) {
  auto tuner = tk::makeMatmulAutotuner<tile::f16>(gAotTuned, tk::MatmulEpilogue::None, false, true, options());
  Problem p = make(Input::F16, {1001, 333, 77}); // not 16-divisible: the general space
  EXPECT_THROW(launchTuned(p, tk::MatmulEpilogue::None, tuner.get()), tile::ArgumentError);
}
