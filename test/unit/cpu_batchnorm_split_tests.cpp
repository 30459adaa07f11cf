// The split batchnorm (BatchNormSplit.h: each channel over many programs, partial sums
// combined in a fixed order) against the one-program-per-channel kernels of BatchNorm.h,
// which cpu_library_model_test checks against float64: the same results up to the order
// of the sums (error <= 1e-5 of the result, or of the magnitudes of the sums' terms where
// a sum cancels: the backward's). Shapes large enough that channels split into
// several chunks (and, for the convolution's statistics, several chunks of stats tiles),
// ragged ones included.
#include "cpu_test_util.h"

#include "tile/kernels/BatchNormSplit.h"
#include "tile/kernels/DslLauncher.h"

#include <cmath>

using namespace tile;
using namespace tile::cputest;
namespace tk = tile::kernels;

namespace {

constexpr double kTol = 1e-5;

struct Shape {
  int64_t n, cin, h, w, c;
  int64_t size() const { return n * c * h * w; }
  std::string str() const {
    return std::to_string(n) + "x" + std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w);
  }
};

class CpuBatchNormSplit : public Seeded {
protected:
  tk::DslLauncher cpu{Executor::CPU};
  static std::vector<double> wide(const std::vector<float> &v) { return std::vector<double>(v.begin(), v.end()); }
};

// The splitting covers every element once, in chunks of whole blocks, and the shapes
// below do split.
TEST_F(CpuBatchNormSplit, SplittingCoversTheChannel) {
  for (int64_t items : {int64_t(1), int64_t(4095), int64_t(4097), int64_t(802816), int64_t(50176), int64_t(133280)})
    for (int64_t c : {int64_t(1), int64_t(3), int64_t(32), int64_t(64), int64_t(2000)}) {
      auto [per, splits] = tk::BatchNormSplit::splitting(items, c);
      EXPECT_EQ(per % tk::BatchNormSplit::kBlock, 0);
      EXPECT_GE(per * splits, items);
      EXPECT_LT(per * (splits - 1), items) << "an empty chunk";
      EXPECT_LE(splits, tk::BatchNormSplit::kMaxSplits);
    }
  EXPECT_GT(tk::BatchNormSplit::splitting(16 * 28 * 28, 5).second, 1);
  EXPECT_GT(tk::BatchNormSplit::statsSplitting(tk::ceilDiv(170 * 28 * 28, tk::Conv2dForward::kMinTileRows), 2).second,
            1);
}

// Forward from the convolution's statistics (+ relu) (+ pool), then backward (+ Σ dx),
// split against unsplit.
TEST_F(CpuBatchNormSplit, MatchesPerChannelKernels) {
  // 15x30: pooled window by window forward (w even), element by element backward (h odd).
  for (Shape s : {Shape{16, 1, 28, 28, 5}, Shape{20, 2, 33, 31, 3}, Shape{170, 1, 28, 28, 2}, Shape{3, 32, 14, 14, 64},
                  Shape{4, 2, 15, 30, 3}, Shape{1, 1, 1, 1, 1}}) {
    for (bool pool : {true, false}) {
      if (pool && (s.h < 2 || s.w < 2)) continue;
      const bool relu = pool || s.n % 2 == 0;
      SCOPED_TRACE(s.str() + (relu ? " relu" : "") + (pool ? " pool" : ""));
      const size_t total = size_t(s.size()), c = size_t(s.c);
      const size_t outs = pool ? size_t(s.n * s.c * (s.h / 2) * (s.w / 2)) : total;
      std::vector<float> in = randomFloats(size_t(s.n * s.cin * s.h * s.w));
      std::vector<float> wt = randomFloats(size_t(s.c * s.cin * 9), -0.3f, 0.3f);
      std::vector<float> bias = randomFloats(c, -3.f, 3.f); // channel means far from 0
      std::vector<float> x = poisoned(total),
                         stats = poisoned(size_t(tk::Conv2dForward::statsElements(s.n, s.h, s.w, s.c)));
      tk::Conv2dForward::launchWithStats(cpu, in.data(), wt.data(), bias.data(), x.data(), stats.data(),
                                         {.n = s.n, .cin = s.cin, .h = s.h, .w = s.w, .cout = s.c});
      tk::ChannelStats st =
          tk::Conv2dForward::channelStats(stats.data(), s.n, s.cin, s.h, s.w, tk::ConvPrecision::Exact);
      std::vector<float> gamma = randomFloats(c, 0.5f, 1.5f), beta = randomFloats(c, -0.5f, 0.5f);
      std::vector<float> work = poisoned(size_t(tk::BatchNormSplit::workspaceElements(s.n, s.c, s.h, s.w, st.rows)));
      const int64_t workN = int64_t(work.size());

      // Forward.
      std::vector<float> y = poisoned(outs), mean = poisoned(c), rstd = poisoned(c);
      std::vector<float> yRef = poisoned(outs), meanRef = poisoned(c), rstdRef = poisoned(c);
      std::vector<int8_t> arg(outs, int8_t(-1)), argRef(outs, int8_t(-1));
      tk::BatchNorm2dForwardSplit::launch(cpu, x.data(), y.data(), arg.data(), gamma.data(), beta.data(), mean.data(),
                                          rstd.data(), st, work.data(), workN, s.n, s.c, s.h, s.w, 1e-5f, relu, pool);
      if (pool)
        tk::BatchNorm2dForward::launchPooled(cpu, x.data(), yRef.data(), argRef.data(), gamma.data(), beta.data(),
                                             meanRef.data(), rstdRef.data(), s.n, s.c, s.h, s.w, 1e-5f, relu, &st);
      else
        tk::BatchNorm2dForward::launch(cpu, x.data(), yRef.data(), gamma.data(), beta.data(), meanRef.data(),
                                       rstdRef.data(), s.n, s.c, s.h, s.w, 1e-5f, relu, &st);
      EXPECT_TRUE(closeTo(mean, wide(meanRef), kTol, "mean"));
      EXPECT_TRUE(closeTo(rstd, wide(rstdRef), kTol, "rstd"));
      EXPECT_TRUE(closeTo(y, wide(yRef), kTol, "y"));
      if (pool) {
        // The statistics differ in the last bits: a near-tie in a window may go either way.
        size_t differ = 0;
        for (size_t i = 0; i < outs; ++i) {
          ASSERT_GE(arg[i], 0) << "argmax " << i << " unwritten";
          differ += arg[i] != argRef[i];
        }
        EXPECT_LE(differ, outs / 10000 + 1) << differ << " of " << outs << " argmax differ";
      }

      // Backward, both from the unsplit forward's statistics and argmax.
      std::vector<float> dy = randomFloats(outs);
      std::vector<float> dx = poisoned(total), dgamma = poisoned(c), dbeta = poisoned(c), dxSum = poisoned(c);
      std::vector<float> dxRef = poisoned(total), dgammaRef = poisoned(c), dbetaRef = poisoned(c);
      tk::BatchNorm2dBackwardSplit::launch(cpu, x.data(), dy.data(), argRef.data(), gamma.data(), beta.data(),
                                           meanRef.data(), rstdRef.data(), dx.data(), dgamma.data(), dbeta.data(),
                                           dxSum.data(), work.data(), workN, s.n, s.c, s.h, s.w, relu, pool);
      if (pool)
        tk::BatchNorm2dBackward::launchPooled(cpu, x.data(), dy.data(), argRef.data(), gamma.data(), beta.data(),
                                              meanRef.data(), rstdRef.data(), dxRef.data(), dgammaRef.data(),
                                              dbetaRef.data(), s.n, s.c, s.h, s.w, relu);
      else
        tk::BatchNorm2dBackward::launch(cpu, x.data(), dy.data(), gamma.data(), beta.data(), meanRef.data(),
                                        rstdRef.data(), dxRef.data(), dgammaRef.data(), dbetaRef.data(), s.n, s.c, s.h,
                                        s.w, relu);
      // dgamma = Σ g·x̂ and dbeta = Σ g over a channel cancel (one sweep seed gave a dgamma
      // of -7.9 from terms summing to ~1e5 in magnitude, the two summation orders 3e-5 of
      // it apart): bounded by the magnitudes Σ|dy·x̂| and Σ|dy| (dy routed through the
      // argmax when pooled; the relu mask ignored, which only makes them larger), and dx by
      // γ·rstd·(|g| + Σ|g|/m + |x̂|·Σ|g·x̂|/m).
      const int64_t hw = s.h * s.w, m = s.n * hw;
      std::vector<double> gradient(total, 0.0), xhat(total), magGamma(c, 0.0), magBeta(c, 0.0), magDx(total);
      for (size_t i = 0; i < total; ++i) {
        const size_t ch = size_t(i / size_t(hw)) % c;
        xhat[i] = std::fabs((double(x[i]) - meanRef[ch]) * rstdRef[ch]);
      }
      for (size_t o = 0; o < outs; ++o) {
        size_t i = o;
        if (pool) {
          const int64_t ow = s.w / 2, oh = s.h / 2, plane = int64_t(o) / (oh * ow), r = int64_t(o) % (oh * ow);
          i = size_t(plane * hw + (2 * (r / ow) + argRef[o] / 2) * s.w + 2 * (r % ow) + argRef[o] % 2);
        }
        gradient[i] = std::fabs(dy[o]);
      }
      for (size_t i = 0; i < total; ++i) {
        const size_t ch = size_t(i / size_t(hw)) % c;
        magGamma[ch] += gradient[i] * xhat[i];
        magBeta[ch] += gradient[i];
      }
      for (size_t i = 0; i < total; ++i) {
        const size_t ch = size_t(i / size_t(hw)) % c;
        magDx[i] = std::fabs(gamma[ch]) * rstdRef[ch] *
                   (gradient[i] + magBeta[ch] / double(m) + xhat[i] * magGamma[ch] / double(m));
      }
      EXPECT_TRUE(closeToMagnitude(dx, wide(dxRef), magDx, kTol, "dx"));
      EXPECT_TRUE(closeToMagnitude(dgamma, wide(dgammaRef), magGamma, kTol, "dgamma"));
      EXPECT_TRUE(closeToMagnitude(dbeta, wide(dbetaRef), magBeta, kTol, "dbeta"));
      // Σ dx over (n, h, w) is 0 in exact arithmetic: compare its size with the terms'.
      std::vector<double> absSum(c, 0.0);
      for (size_t i = 0; i < total; ++i) absSum[(i / size_t(s.h * s.w)) % c] += std::fabs(dxRef[i]);
      for (size_t ch = 0; ch < c; ++ch)
        EXPECT_LE(std::fabs(dxSum[ch]), 1e-5 * absSum[ch] + 1e-30) << "dx sum of channel " << ch << " = " << dxSum[ch];
    }
  }
}

TEST_F(CpuBatchNormSplit, RejectsASmallWorkspace) {
  std::vector<float> p(16);
  tk::ChannelStats st = tk::Conv2dForward::channelStats(p.data(), 16, 1, 28, 28, tk::ConvPrecision::Exact);
  EXPECT_THROW(tk::BatchNorm2dForwardSplit::launch(cpu, p.data(), p.data(), p.data(), p.data(), p.data(), p.data(),
                                                   p.data(), st, p.data(), 1, 16, 5, 28, 28, 1e-5f, true, true),
               tile::ArgumentError);
  EXPECT_THROW(tk::BatchNorm2dBackwardSplit::launch(cpu, p.data(), p.data(), p.data(), p.data(), p.data(), p.data(),
                                                    p.data(), p.data(), p.data(), p.data(), p.data(), p.data(), 1, 16,
                                                    5, 28, 28, true, true),
               tile::ArgumentError);
}

} // namespace
