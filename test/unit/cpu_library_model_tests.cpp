// The MNIST CNN's kernels (docs/models.md) through their launchers on the CPU
// executor, each against a float64 reference written plainly here: fresh random inputs
// (seed printed on failure, TILE_TEST_SEED replays), outputs poisoned with NaN first (so
// every element must be written), ||out - ref|| <= 1e-5 of ||ref|| on the f32 paths, or
// of the magnitudes of the sums' terms where a sum may cancel (convolutions, partial sums).
// Shapes: the model's (batch 3) and ragged ones (channels not multiples of the blocks,
// odd spatial sizes). The classifier head: cpu_library_classifier_tests.cpp.
#include "conv_reference.h"
#include "cpu_test_util.h"

#include "tile/kernels/DslLauncher.h"
#include "tile/kernels/LinearCrossEntropy.h"

#include <algorithm>
#include <cmath>

using namespace tile;
using namespace tile::cputest;
namespace tk = tile::kernels;

namespace {

constexpr double kTol = 1e-5;

/// closeTo, printing the relative error when TILE_TEST_PRINT_ERRORS is set.
::testing::AssertionResult check(const std::vector<float> &got, const std::vector<double> &ref, double tol,
                                 const std::string &what) {
  if (std::getenv("TILE_TEST_PRINT_ERRORS") && got.size() == ref.size()) {
    double num = 0, den = 0;
    for (size_t i = 0; i < got.size(); ++i) num += (got[i] - ref[i]) * (got[i] - ref[i]), den += ref[i] * ref[i];
    std::printf("    %-12s relative error %.2e (%zu elements)\n", what.c_str(),
                den > 0 ? std::sqrt(num / den) : std::sqrt(num), got.size());
  }
  return closeTo(got, ref, tol, what);
}

class CpuModelKernels : public Seeded {
protected:
  tk::DslLauncher cpu{Executor::CPU};
  std::vector<double> wide(const std::vector<float> &v) { return std::vector<double>(v.begin(), v.end()); }
};

// ---------------------------------------------------------------------------------------
// Flat elementwise kernels

TEST_F(CpuModelKernels, ReluForwardBackward) {
  for (int64_t n : {int64_t(1), int64_t(1023), int64_t(1025), int64_t(3 * 32 * 28 * 28 + 5), uniformInt(2, 50000)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<float> x = randomFloats(static_cast<size_t>(n)), dy = randomFloats(static_cast<size_t>(n));
    std::vector<float> y = poisoned(static_cast<size_t>(n) + 8), dx = poisoned(static_cast<size_t>(n) + 8);
    tk::ReluForward::launch(cpu, x.data(), y.data(), n);
    tk::ReluBackward::launch(cpu, y.data(), dy.data(), dx.data(), n);
    std::vector<double> refY(static_cast<size_t>(n)), refDx(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      refY[i] = x[i] > 0 ? x[i] : 0.0;
      refDx[i] = x[i] > 0 ? dy[i] : 0.0;
    }
    EXPECT_TRUE(check(std::vector<float>(y.begin(), y.begin() + n), refY, 0, "relu y"));
    EXPECT_TRUE(check(std::vector<float>(dx.begin(), dx.begin() + n), refDx, 0, "relu dx"));
    for (size_t i = static_cast<size_t>(n); i < y.size(); ++i)
      EXPECT_EQ(bitsOf(y[i]), kPoisonBits) << "past the end: " << i;
    // In place, as the model may run it.
    tk::ReluForward::launch(cpu, x.data(), x.data(), n);
    EXPECT_TRUE(check(x, refY, 0, "relu in place"));
  }
}

TEST_F(CpuModelKernels, SgdUpdateAndFill) {
  for (int64_t n : {int64_t(1), int64_t(10), int64_t(3136 * 128), int64_t(32 * 9), uniformInt(2, 100000)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<float> p = randomFloats(static_cast<size_t>(n)), g = randomFloats(static_cast<size_t>(n));
    const float lr = uniform(0.001f, 0.1f);
    // p - lr * g cancels where p ~ lr * g: bounded by |p| + |lr * g|, two roundings of at
    // most 2^-24 each (without FMA), so 2^-23 of the magnitude at worst.
    std::vector<double> ref(static_cast<size_t>(n)), magnitude(ref.size());
    for (int64_t i = 0; i < n; ++i) {
      ref[i] = double(p[i]) - double(lr) * double(g[i]);
      magnitude[i] = std::fabs(p[i]) + std::fabs(double(lr) * double(g[i]));
    }
    tk::SgdUpdate::launch(cpu, p.data(), g.data(), lr, n);
    EXPECT_TRUE(closeToMagnitude(p, ref, magnitude, 1.25e-7, "sgd"));
    std::vector<float> z = poisoned(static_cast<size_t>(n) + 4);
    tk::Fill::zero(cpu, z.data(), n);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(bitsOf(z[i]), 0u) << i;
    for (size_t i = static_cast<size_t>(n); i < z.size(); ++i) EXPECT_EQ(bitsOf(z[i]), kPoisonBits) << i;
  }
}

// ---------------------------------------------------------------------------------------
// Max pooling 2x2 stride 2

struct Nchw {
  int64_t n, c, h, w;
  int64_t size() const { return n * c * h * w; }
  std::string str() const {
    return std::to_string(n) + "x" + std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w);
  }
};

TEST_F(CpuModelKernels, MaxPool2x2) {
  for (Nchw s : {Nchw{3, 32, 28, 28}, Nchw{3, 64, 14, 14}, Nchw{2, 3, 7, 9}, Nchw{1, 5, 3, 2}, Nchw{2, 1, 1, 5}}) {
    SCOPED_TRACE(s.str());
    const int64_t oh = s.h / 2, ow = s.w / 2, outs = s.n * s.c * oh * ow;
    std::vector<float> x = randomFloats(static_cast<size_t>(s.size()));
    // Ties inside windows: the first maximum wins, as in PyTorch.
    for (size_t i = 0; i + 1 < x.size(); i += 7) x[i + 1] = x[i];
    std::vector<float> y = poisoned(static_cast<size_t>(outs)), dy = randomFloats(static_cast<size_t>(outs)),
                       dx = poisoned(static_cast<size_t>(s.size()));
    std::vector<int8_t> arg(static_cast<size_t>(outs), int8_t(-1));
    tk::MaxPool2dForward::launch(cpu, x.data(), y.data(), arg.data(), s.n, s.c, s.h, s.w);
    tk::MaxPool2dBackward::launch(cpu, dy.data(), arg.data(), dx.data(), s.n, s.c, s.h, s.w);
    std::vector<double> refY, refDx(static_cast<size_t>(s.size()), 0.0);
    std::vector<int8_t> refArg;
    for (int64_t pl = 0; pl < s.n * s.c; ++pl)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          int best = 0;
          double m = -INFINITY;
          for (int q = 0; q < 4; ++q) {
            double v = x[pl * s.h * s.w + (2 * i + q / 2) * s.w + 2 * j + q % 2];
            if (v > m) m = v, best = q;
          }
          refY.push_back(m);
          refArg.push_back(int8_t(best));
          refDx[pl * s.h * s.w + (2 * i + best / 2) * s.w + 2 * j + best % 2] = dy[(pl * oh + i) * ow + j];
        }
    EXPECT_TRUE(check(y, refY, 0, "maxpool y"));
    EXPECT_EQ(arg, refArg);
    EXPECT_TRUE(check(dx, refDx, 0, "maxpool dx"));
  }
}

// ---------------------------------------------------------------------------------------
// Batchnorm2d (batch statistics, biased variance), optionally with relu fused

/// The float64 batchnorm, and the magnitudes of its backward's sums (mag*: the sizes of
/// their terms; Σ g and Σ g·x̂ over a channel cancel, and dx with them).
struct BnRef {
  std::vector<double> y, mean, rstd, dx, dgamma, dbeta, magDx, magDgamma, magDbeta;
};

BnRef batchNormRef(const Nchw &s, const std::vector<float> &x, const std::vector<float> &gamma,
                   const std::vector<float> &beta, const std::vector<float> &dy, bool relu, float eps,
                   const std::vector<float> *kernelY) {
  BnRef r;
  const int64_t hw = s.h * s.w, m = s.n * hw;
  r.y.assign(static_cast<size_t>(s.size()), 0.0);
  r.dx.assign(static_cast<size_t>(s.size()), 0.0);
  r.magDx.assign(r.dx.size(), 0.0);
  auto at = [&](int64_t i, int64_t c) { return (i / hw) * s.c * hw + c * hw + i % hw; };
  for (int64_t c = 0; c < s.c; ++c) {
    double mu = 0, var = 0;
    for (int64_t i = 0; i < m; ++i) mu += x[at(i, c)];
    mu /= double(m);
    for (int64_t i = 0; i < m; ++i) var += (x[at(i, c)] - mu) * (x[at(i, c)] - mu);
    var /= double(m);
    double rs = 1.0 / std::sqrt(var + eps);
    r.mean.push_back(mu);
    r.rstd.push_back(rs);
    double sg = 0, sgx = 0, mg = 0, mgx = 0;
    std::vector<double> g(static_cast<size_t>(m)), xhat(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) {
      xhat[i] = (x[at(i, c)] - mu) * rs;
      double pre = xhat[i] * gamma[c] + beta[c];
      r.y[at(i, c)] = relu ? std::max(pre, 0.0) : pre;
      // The relu mask of the kernel's own forward output: where the float result sits
      // within rounding of 0, float64 could decide otherwise.
      bool active = !relu || (kernelY ? (*kernelY)[at(i, c)] > 0 : pre > 0);
      g[i] = active ? dy[at(i, c)] : 0.0;
      sg += g[i];
      sgx += g[i] * xhat[i];
      mg += std::fabs(g[i]);
      mgx += std::fabs(g[i] * xhat[i]);
    }
    r.dbeta.push_back(sg);
    r.dgamma.push_back(sgx);
    r.magDbeta.push_back(mg);
    r.magDgamma.push_back(mgx);
    for (int64_t i = 0; i < m; ++i) {
      r.dx[at(i, c)] = gamma[c] * rs * (g[i] - sg / m - xhat[i] * sgx / m);
      r.magDx[at(i, c)] = std::fabs(gamma[c]) * rs * (std::fabs(g[i]) + mg / m + std::fabs(xhat[i]) * mgx / m);
    }
  }
  return r;
}

/// Random NCHW input with a per-channel offset and scale, so that the mean is not ~0
/// (which a variance computed as E[x²] - E[x]² would not survive).
std::vector<float> channelShifted(const Nchw &s, std::vector<float> x, const std::vector<float> &shift,
                                  const std::vector<float> &scale) {
  for (size_t i = 0; i < x.size(); ++i) {
    size_t ch = (i / static_cast<size_t>(s.h * s.w)) % static_cast<size_t>(s.c);
    x[i] = shift[ch] + scale[ch] * x[i];
  }
  return x;
}

TEST_F(CpuModelKernels, BatchNorm2d) {
  for (Nchw s : {Nchw{3, 32, 28, 28}, Nchw{3, 64, 14, 14}, Nchw{2, 3, 7, 5}, Nchw{1, 1, 1, 1}, Nchw{3, 5, 33, 31}}) {
    for (bool relu : {false, true}) {
      SCOPED_TRACE(s.str() + (relu ? " relu" : ""));
      const size_t total = static_cast<size_t>(s.size()), c = static_cast<size_t>(s.c);
      std::vector<float> shift = randomFloats(c, -5.f, 5.f), scale = randomFloats(c, 0.1f, 3.f);
      std::vector<float> x = channelShifted(s, randomFloats(total), shift, scale);
      std::vector<float> gamma = randomFloats(c, 0.5f, 1.5f), beta = randomFloats(c, -0.5f, 0.5f);
      std::vector<float> dy = randomFloats(total);
      std::vector<float> y = poisoned(total), mean = poisoned(c), rstd = poisoned(c);
      std::vector<float> dx = poisoned(total), dgamma = poisoned(c), dbeta = poisoned(c);
      const float eps = 1e-5f;
      tk::BatchNorm2dForward::launch(cpu, x.data(), y.data(), gamma.data(), beta.data(), mean.data(), rstd.data(), s.n,
                                     s.c, s.h, s.w, eps, relu);
      std::vector<float> dxSum = poisoned(c);
      tk::BatchNorm2dBackward::launch(cpu, x.data(), dy.data(), gamma.data(), beta.data(), mean.data(), rstd.data(),
                                      dx.data(), dgamma.data(), dbeta.data(), s.n, s.c, s.h, s.w, relu, dxSum.data());
      BnRef r = batchNormRef(s, x, gamma, beta, dy, relu, eps, &y);
      // Σ dx over (n, h, w) is 0 in exact arithmetic: compare its size with the terms'.
      std::vector<double> absSum(c, 0.0);
      for (size_t i = 0; i < total; ++i) absSum[(i / static_cast<size_t>(s.h * s.w)) % c] += std::fabs(r.dx[i]);
      for (size_t ch = 0; ch < c; ++ch)
        EXPECT_LE(std::fabs(dxSum[ch]), 1e-5 * absSum[ch] + 1e-30) << "dx sum of channel " << ch << " = " << dxSum[ch];
      EXPECT_TRUE(check(y, r.y, kTol, "bn y"));
      EXPECT_TRUE(check(mean, r.mean, kTol, "bn mean"));
      EXPECT_TRUE(check(rstd, r.rstd, kTol, "bn rstd"));
      EXPECT_TRUE(closeToMagnitude(dx, r.dx, r.magDx, kTol, "bn dx"));
      EXPECT_TRUE(closeToMagnitude(dgamma, r.dgamma, r.magDgamma, kTol, "bn dgamma"));
      EXPECT_TRUE(closeToMagnitude(dbeta, r.dbeta, r.magDbeta, kTol, "bn dbeta"));
    }
  }
}

// batchnorm + relu + 2x2 max pooling in one kernel each way, against the float64
// batchnorm of the unfused formulas, pooled. The argmax reference pools the unfused
// kernel's output (the same float values: near-ties decided alike).
TEST_F(CpuModelKernels, BatchNorm2dReluMaxPoolFused) {
  for (Nchw s : {Nchw{3, 32, 28, 28}, Nchw{3, 64, 14, 14}, Nchw{2, 3, 7, 5}, Nchw{1, 2, 2, 3}}) {
    for (bool relu : {true, false}) {
      SCOPED_TRACE(s.str() + (relu ? " relu" : ""));
      const size_t total = static_cast<size_t>(s.size()), c = static_cast<size_t>(s.c);
      const int64_t oh = s.h / 2, ow = s.w / 2;
      const size_t pooled = static_cast<size_t>(s.n * s.c * oh * ow);
      std::vector<float> shift = randomFloats(c, -5.f, 5.f), scale = randomFloats(c, 0.1f, 3.f);
      std::vector<float> x = channelShifted(s, randomFloats(total), shift, scale);
      std::vector<float> gamma = randomFloats(c, 0.5f, 1.5f), beta = randomFloats(c, -0.5f, 0.5f);
      std::vector<float> dpool = randomFloats(pooled);
      std::vector<float> y = poisoned(pooled), mean = poisoned(c), rstd = poisoned(c), full = poisoned(total);
      std::vector<float> fm = poisoned(c), fr = poisoned(c);
      std::vector<int8_t> arg(pooled, int8_t(-1));
      std::vector<float> dx = poisoned(total), dgamma = poisoned(c), dbeta = poisoned(c);
      const float eps = 1e-5f;
      tk::BatchNorm2dForward::launchPooled(cpu, x.data(), y.data(), arg.data(), gamma.data(), beta.data(), mean.data(),
                                           rstd.data(), s.n, s.c, s.h, s.w, eps, relu);
      tk::BatchNorm2dBackward::launchPooled(cpu, x.data(), dpool.data(), arg.data(), gamma.data(), beta.data(),
                                            mean.data(), rstd.data(), dx.data(), dgamma.data(), dbeta.data(), s.n, s.c,
                                            s.h, s.w, relu);
      tk::BatchNorm2dForward::launch(cpu, x.data(), full.data(), gamma.data(), beta.data(), fm.data(), fr.data(), s.n,
                                     s.c, s.h, s.w, eps, relu);
      // Pool the unfused output: the argmax, and the full-size gradient it routes to.
      std::vector<int8_t> refArg;
      std::vector<float> dyFull(total, 0.0f);
      std::vector<double> refY;
      for (int64_t pl = 0; pl < s.n * s.c; ++pl)
        for (int64_t i = 0; i < oh; ++i)
          for (int64_t j = 0; j < ow; ++j) {
            int best = 0;
            for (int q = 1; q < 4; ++q)
              if (full[pl * s.h * s.w + (2 * i + q / 2) * s.w + 2 * j + q % 2] >
                  full[pl * s.h * s.w + (2 * i + best / 2) * s.w + 2 * j + best % 2])
                best = q;
            refArg.push_back(int8_t(best));
            dyFull[pl * s.h * s.w + (2 * i + best / 2) * s.w + 2 * j + best % 2] = dpool[(pl * oh + i) * ow + j];
          }
      BnRef r = batchNormRef(s, x, gamma, beta, dyFull, relu, eps, &full);
      for (int64_t pl = 0; pl < s.n * s.c; ++pl)
        for (int64_t i = 0; i < oh; ++i)
          for (int64_t j = 0; j < ow; ++j) {
            int q = refArg[(pl * oh + i) * ow + j];
            refY.push_back(r.y[pl * s.h * s.w + (2 * i + q / 2) * s.w + 2 * j + q % 2]);
          }
      EXPECT_EQ(arg, refArg);
      EXPECT_TRUE(check(y, refY, kTol, "pooled y"));
      EXPECT_TRUE(check(mean, r.mean, kTol, "mean"));
      EXPECT_TRUE(check(rstd, r.rstd, kTol, "rstd"));
      EXPECT_TRUE(closeToMagnitude(dx, r.dx, r.magDx, kTol, "dx"));
      EXPECT_TRUE(closeToMagnitude(dgamma, r.dgamma, r.magDgamma, kTol, "dgamma"));
      EXPECT_TRUE(closeToMagnitude(dbeta, r.dbeta, r.magDbeta, kTol, "dbeta"));
    }
  }
}

// The convolution's epilogue writes per-tile partial statistics of its output; the
// batchnorm combines them instead of two passes over the output.
TEST_F(CpuModelKernels, BatchNorm2dFromConvolutionStatistics) {
  struct Case {
    int64_t n, cin, h, w, cout;
  };
  for (Case k : {Case{3, 1, 28, 28, 32}, Case{3, 32, 14, 14, 64}, Case{2, 3, 7, 9, 5}, Case{1, 2, 1, 1, 3}}) {
    for (bool relu : {false, true}) {
      Nchw s{k.n, k.cout, k.h, k.w};
      SCOPED_TRACE(s.str() + (relu ? " relu" : ""));
      const size_t total = static_cast<size_t>(s.size()), c = static_cast<size_t>(s.c);
      std::vector<float> in = randomFloats(static_cast<size_t>(k.n * k.cin * k.h * k.w));
      std::vector<float> wt = randomFloats(static_cast<size_t>(k.cout * k.cin * 9), -0.3f, 0.3f);
      std::vector<float> bias = randomFloats(c, -3.f, 3.f); // channel means far from 0
      std::vector<float> x = poisoned(total),
                         stats = poisoned(static_cast<size_t>(tk::Conv2dForward::statsElements(k.n, k.h, k.w, k.cout)));
      tk::Conv2dForward::launchWithStats(cpu, in.data(), wt.data(), bias.data(), x.data(), stats.data(),
                                         {.n = k.n, .cin = k.cin, .h = k.h, .w = k.w, .cout = k.cout});
      std::vector<float> gamma = randomFloats(c, 0.5f, 1.5f), beta = randomFloats(c, -0.5f, 0.5f);
      std::vector<float> y = poisoned(total), mean = poisoned(c), rstd = poisoned(c);
      tk::ChannelStats st =
          tk::Conv2dForward::channelStats(stats.data(), k.n, k.cin, k.h, k.w, tk::ConvPrecision::Exact);
      tk::BatchNorm2dForward::launch(cpu, x.data(), y.data(), gamma.data(), beta.data(), mean.data(), rstd.data(), s.n,
                                     s.c, s.h, s.w, 1e-5f, relu, &st);
      BnRef r = batchNormRef(s, x, gamma, beta, std::vector<float>(total, 0.f), relu, 1e-5f, nullptr);
      EXPECT_TRUE(check(y, r.y, kTol, "bn y"));
      EXPECT_TRUE(check(mean, r.mean, kTol, "bn mean"));
      EXPECT_TRUE(check(rstd, r.rstd, kTol, "bn rstd"));
    }
  }
}

// ---------------------------------------------------------------------------------------
// conv2d 3x3, stride 1, pad 1, bias: forward, backward data, weights and bias

TEST_F(CpuModelKernels, Conv2d3x3) {
  for (ConvShape c : {ConvShape{3, 1, 28, 28, 32}, ConvShape{3, 32, 14, 14, 64}, ConvShape{2, 3, 7, 9, 5},
                      ConvShape{1, 1, 1, 1, 1}, ConvShape{2, 33, 5, 3, 35}}) {
    SCOPED_TRACE(std::to_string(c.n) + "x" + std::to_string(c.cin) + "x" + std::to_string(c.h) + "x" +
                 std::to_string(c.w) + " -> " + std::to_string(c.cout));
    const int64_t hw = c.h * c.w, k = c.cin * 9;
    std::vector<float> x = randomFloats(static_cast<size_t>(c.n * c.cin * hw)),
                       wt = randomFloats(static_cast<size_t>(c.cout * k), -0.3f, 0.3f);
    std::vector<float> bias = randomFloats(static_cast<size_t>(c.cout)),
                       dy = randomFloats(static_cast<size_t>(c.n * c.cout * hw));
    std::vector<float> y = poisoned(dy.size()), dx = poisoned(x.size()), dw = poisoned(wt.size()),
                       db = poisoned(bias.size());
    std::vector<float> work =
        poisoned(static_cast<size_t>(tk::Conv2dBackwardWeight::workspaceElements(c.n, c.cin, c.h, c.w, c.cout)));
    tk::Conv2dForward::launch(cpu, x.data(), wt.data(), bias.data(), y.data(),
                              {.n = c.n, .cin = c.cin, .h = c.h, .w = c.w, .cout = c.cout});
    tk::Conv2dBackwardData::launch(cpu, dy.data(), wt.data(), dx.data(),
                                   {.n = c.n, .cin = c.cin, .h = c.h, .w = c.w, .cout = c.cout});
    tk::Conv2dBackwardWeight::launch(cpu, x.data(), dy.data(), dw.data(), work.data(), int64_t(work.size()),
                                     {.n = c.n, .cin = c.cin, .h = c.h, .w = c.w, .cout = c.cout});
    tk::ChannelSum::launch(cpu, dy.data(), db.data(), c.n, c.cout, c.h, c.w);

    const ConvReference ref = convReference(c, x, wt, bias, dy);
    const ConvReference mag = convReference(c, absolute(x), absolute(wt), absolute(bias), absolute(dy));
    EXPECT_TRUE(closeToMagnitude(y, ref.y, mag.y, kTol, "conv y"));
    EXPECT_TRUE(closeToMagnitude(dx, ref.dx, mag.dx, kTol, "conv dx"));
    EXPECT_TRUE(closeToMagnitude(dw, ref.dw, mag.dw, kTol, "conv dw"));
    EXPECT_TRUE(closeToMagnitude(db, ref.db, mag.db, kTol, "conv db"));
    // With the tap-major weights (as MnistCnn runs conv2): the policy's tap-major tiles.
    std::vector<float> taps = poisoned(wt.size()), yT = poisoned(dy.size()), dxT = poisoned(x.size());
    tk::ConvWeightTaps::launch(cpu, wt.data(), taps.data(), c.cin, c.cout);
    tk::Conv2dForward::launch(cpu, x.data(), wt.data(), bias.data(), yT.data(),
                              {.n = c.n, .cin = c.cin, .h = c.h, .w = c.w, .cout = c.cout, .weightTaps = taps.data()});
    tk::Conv2dBackwardData::launch(
        cpu, dy.data(), wt.data(), dxT.data(),
        {.n = c.n, .cin = c.cin, .h = c.h, .w = c.w, .cout = c.cout, .weightTaps = taps.data()});
    EXPECT_TRUE(closeToMagnitude(yT, ref.y, mag.y, kTol, "conv y, tap-major weights"));
    EXPECT_TRUE(closeToMagnitude(dxT, ref.dx, mag.dx, kTol, "conv dx, tap-major weights"));
  }
}

// The sum of split partials, in both of its tiles (wide: many outputs; tall: few outputs over
// many splits), against float64.
TEST_F(CpuModelKernels, SumPartials) {
  for (auto [len, splits] :
       std::vector<std::pair<int64_t, int64_t>>{{288, 883}, {64, 33}, {1000, 40}, {5000, 300}, {7, 1}, {1025, 257}}) {
    SCOPED_TRACE(std::to_string(len) + " x " + std::to_string(splits) + " splits");
    std::vector<float> part = randomFloats(static_cast<size_t>(len * splits)), out = poisoned(static_cast<size_t>(len));
    tk::SumPartials::launch(cpu, part.data(), out.data(), len, splits);
    std::vector<double> ref(static_cast<size_t>(len), 0.0), magnitude(ref.size(), 0.0);
    for (int64_t s = 0; s < splits; ++s)
      for (int64_t j = 0; j < len; ++j) {
        ref[size_t(j)] += part[size_t(s * len + j)];
        magnitude[size_t(j)] += std::fabs(part[size_t(s * len + j)]);
      }
    EXPECT_TRUE(closeToMagnitude(out, ref, magnitude, kTol, "sum of partials"));
  }
}

// Splitting the weight-gradient reduction over programs is deterministic: two runs agree
// bit for bit.
TEST_F(CpuModelKernels, Conv2dWeightGradientIsReproducible) {
  const int64_t n = 4, cin = 8, h = 28, w = 28, cout = 16;
  std::vector<float> x = randomFloats(static_cast<size_t>(n * cin * h * w)),
                     dy = randomFloats(static_cast<size_t>(n * cout * h * w));
  std::vector<float> work(static_cast<size_t>(tk::Conv2dBackwardWeight::workspaceElements(n, cin, h, w, cout)));
  ASSERT_GT(work.size(), static_cast<size_t>(cout * cin * 9)) << "the case must split the reduction";
  std::vector<float> a = poisoned(static_cast<size_t>(cout * cin * 9)), b = poisoned(a.size());
  tk::Conv2dBackwardWeight::launch(cpu, x.data(), dy.data(), a.data(), work.data(), int64_t(work.size()),
                                   {.n = n, .cin = cin, .h = h, .w = w, .cout = cout});
  tk::Conv2dBackwardWeight::launch(cpu, x.data(), dy.data(), b.data(), work.data(), int64_t(work.size()),
                                   {.n = n, .cin = cin, .h = h, .w = w, .cout = cout});
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(bitsOf(a[i]), bitsOf(b[i])) << i;
}

} // namespace
