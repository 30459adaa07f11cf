// MatmulSplitK (K split over programs, partials reduced in a fixed order, bias + relu in
// the reduction) against float64 on the CPU executor: the MNIST FC layer's shapes (batch
// 1 and 64, K = 3136) and ragged ones, outputs poisoned first, error <= 1e-5 of Σ|x·w| + |bias|;
// and the launcher's choice: split only where the plain tiles leave the GPU idle.
#include "cpu_test_util.h"

#include "tile/kernels/DslLauncher.h"
#include "tile/kernels/Linear.h"

#include <cmath>

using namespace tile;
using namespace tile::cputest;
namespace tk = tile::kernels;

namespace {

class CpuMatmulSplitK : public Seeded {
protected:
  tk::DslLauncher cpu{Executor::CPU};
};

TEST_F(CpuMatmulSplitK, SplitsOnlyFewTilesOverLongK) {
  EXPECT_GT(tk::MatmulSplitK::splitting(64, 128, 3136).second, 1);    // fc1 at batch 64: 8 tiles
  EXPECT_EQ(tk::MatmulSplitK::splitting(64, 128, 100).second, 1);     // short K
  EXPECT_EQ(tk::MatmulSplitK::splitting(4096, 4096, 3136).second, 1); // plenty of tiles
  for (int64_t m : {int64_t(1), int64_t(31), int64_t(64), int64_t(1024)}) {
    auto [per, splits] = tk::MatmulSplitK::splitting(m, 128, 3136);
    EXPECT_EQ(per % 16, 0);
    EXPECT_GE(per * splits, 3136);
    EXPECT_LT(per * (splits - 1), 3136) << "an empty chunk";
    // A workspace sized for the largest m holds every smaller m's partials.
    EXPECT_GE(tk::MatmulSplitK::workspaceElements(1024, 128, 3136), splits > 1 ? splits * m * 128 : 0);
  }
}

TEST_F(CpuMatmulSplitK, MatchesFloat64) {
  struct Case {
    int64_t m, n, k;
    tk::MatmulEpilogue epilogue;
  };
  for (Case c : {Case{64, 128, 3136, tk::MatmulEpilogue::BiasRelu}, Case{1, 128, 3136, tk::MatmulEpilogue::Bias},
                 Case{33, 10, 3141, tk::MatmulEpilogue::None}, Case{70, 45, 1000, tk::MatmulEpilogue::BiasRelu}}) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) + " epilogue " +
                 std::to_string(int(c.epilogue)));
    // As Linear::forward: x [m, k], W [n, k] (B = Wᵀ), y [m, n].
    std::vector<float> x = randomFloats(size_t(c.m * c.k)), w = randomFloats(size_t(c.n * c.k), -0.1f, 0.1f);
    std::vector<float> bias = randomFloats(size_t(c.n));
    std::vector<double> ref(size_t(c.m * c.n)), magnitude(ref.size()); // magnitude: Σ|x·w| + |bias|
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        double acc = c.epilogue == tk::MatmulEpilogue::None ? 0.0 : bias[j], mag = std::fabs(acc);
        for (int64_t q = 0; q < c.k; ++q) {
          const double p = double(x[i * c.k + q]) * w[j * c.k + q];
          acc += p, mag += std::fabs(p);
        }
        ref[i * c.n + j] = c.epilogue == tk::MatmulEpilogue::BiasRelu ? std::max(acc, 0.0) : acc;
        magnitude[i * c.n + j] = mag;
      }
    // Exact f32 within 1e-5; TF32 tensor-core inputs within docs/models.md's 1e-3.
    for (bool tf32 : {false, true}) {
      ASSERT_TRUE(tk::MatmulSplitK::worthSplitting(c.m, c.n, c.k, tf32));
      std::vector<float> y = poisoned(size_t(c.m * c.n));
      std::vector<float> work = poisoned(size_t(tk::MatmulSplitK::workspaceElements(c.m, c.n, c.k)));
      tk::MatmulSplitK::launch(cpu,
                               {.a = x.data(),
                                .b = w.data(),
                                .c = y.data(),
                                .bias = bias.data(),
                                .m = c.m,
                                .n = c.n,
                                .k = c.k,
                                .strideAm = c.k,
                                .strideAk = 1,
                                .strideBk = 1,
                                .strideBn = c.k,
                                .strideCm = c.n,
                                .strideCn = 1,
                                .epilogue = c.epilogue,
                                .tf32 = tf32},
                               work.data(), int64_t(work.size()), nullptr);
      EXPECT_TRUE(closeToMagnitude(y, ref, magnitude, tf32 ? 1e-3 : 1e-5, tf32 ? "y (tf32)" : "y"));
    }
  }
}

TEST_F(CpuMatmulSplitK, RejectsASmallWorkspace) {
  std::vector<float> p(16);
  EXPECT_THROW(tk::Linear::forward(cpu, p.data(), p.data(), p.data(), p.data(), 64, 3136, 128, true, p.data(), 16),
               tile::ArgumentError);
}

} // namespace
