// The MNIST CNN's kernels (shared/mnist_cnn.md) through their launchers on the CPU
// executor, each against a float64 reference written plainly here: fresh random inputs
// (seed printed on failure, TILE_TEST_SEED replays), outputs poisoned with NaN first (so
// every element must be written), ||out - ref|| / ||ref|| <= 1e-5 on the f32 paths.
// Shapes: the model's (batch 3) and ragged ones (channels not multiples of the blocks,
// odd spatial sizes).
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
    std::printf("    %-12s relative error %.2e (%zu elements)\n", what.c_str(), den > 0 ? std::sqrt(num / den) : std::sqrt(num),
                got.size());
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
    for (size_t i = static_cast<size_t>(n); i < y.size(); ++i) EXPECT_EQ(bitsOf(y[i]), kPoisonBits) << "past the end: " << i;
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
    std::vector<double> ref(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) ref[i] = double(p[i]) - double(lr) * double(g[i]);
    tk::SgdUpdate::launch(cpu, p.data(), g.data(), lr, n);
    EXPECT_TRUE(check(p, ref, 1e-7, "sgd"));
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
    std::vector<float> y = poisoned(static_cast<size_t>(outs)), dy = randomFloats(static_cast<size_t>(outs)), dx = poisoned(static_cast<size_t>(s.size()));
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

struct BnRef {
  std::vector<double> y, mean, rstd, dx, dgamma, dbeta;
};

BnRef batchNormRef(const Nchw &s, const std::vector<float> &x, const std::vector<float> &gamma,
                   const std::vector<float> &beta, const std::vector<float> &dy, bool relu, float eps,
                   const std::vector<float> *kernelY) {
  BnRef r;
  const int64_t hw = s.h * s.w, m = s.n * hw;
  r.y.assign(static_cast<size_t>(s.size()), 0.0);
  r.dx.assign(static_cast<size_t>(s.size()), 0.0);
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
    double sg = 0, sgx = 0;
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
    }
    r.dbeta.push_back(sg);
    r.dgamma.push_back(sgx);
    for (int64_t i = 0; i < m; ++i) r.dx[at(i, c)] = gamma[c] * rs * (g[i] - sg / m - xhat[i] * sgx / m);
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
      EXPECT_TRUE(check(dx, r.dx, kTol, "bn dx"));
      EXPECT_TRUE(check(dgamma, r.dgamma, kTol, "bn dgamma"));
      EXPECT_TRUE(check(dbeta, r.dbeta, kTol, "bn dbeta"));
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
      EXPECT_TRUE(check(dx, r.dx, kTol, "dx"));
      EXPECT_TRUE(check(dgamma, r.dgamma, kTol, "dgamma"));
      EXPECT_TRUE(check(dbeta, r.dbeta, kTol, "dbeta"));
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
      std::vector<float> x = poisoned(total), stats = poisoned(static_cast<size_t>(
                                                  tk::Conv2dForward::statsElements(k.n, k.h, k.w, k.cout)));
      tk::Conv2dForward::launchWithStats(cpu, in.data(), wt.data(), bias.data(), x.data(), stats.data(), k.n, k.cin,
                                         k.h, k.w, k.cout);
      std::vector<float> gamma = randomFloats(c, 0.5f, 1.5f), beta = randomFloats(c, -0.5f, 0.5f);
      std::vector<float> y = poisoned(total), mean = poisoned(c), rstd = poisoned(c);
      tk::ChannelStats st = tk::Conv2dForward::channelStats(stats.data(), k.n, k.cin, k.h, k.w, tk::ConvPrecision::Exact);
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
// log-softmax + NLL, forward and backward in one kernel

TEST_F(CpuModelKernels, CrossEntropy) {
  for (auto [batch, classes] : std::vector<std::pair<int64_t, int64_t>>{{3, 10}, {64, 10}, {100, 10}, {1, 1}, {7, 37}}) {
    SCOPED_TRACE(std::to_string(batch) + "x" + std::to_string(classes));
    std::vector<float> logits = randomFloats(static_cast<size_t>(batch * classes), -10.f, 10.f);
    std::vector<int32_t> labels(static_cast<size_t>(batch));
    for (int32_t &l : labels) l = int32_t(uniformInt(0, classes - 1));
    std::vector<float> loss = poisoned(static_cast<size_t>(batch)), mean = poisoned(1), dlogits = poisoned(static_cast<size_t>(batch * classes));
    tk::CrossEntropy::launch(cpu, logits.data(), labels.data(), loss.data(), mean.data(), dlogits.data(), batch,
                             classes);
    std::vector<double> refLoss, refD;
    double refMean = 0;
    for (int64_t b = 0; b < batch; ++b) {
      const float *row = logits.data() + b * classes;
      double m = *std::max_element(row, row + classes), s = 0;
      for (int64_t j = 0; j < classes; ++j) s += std::exp(row[j] - m);
      double lse = m + std::log(s);
      refLoss.push_back(lse - row[labels[b]]);
      refMean += refLoss.back() / double(batch);
      for (int64_t j = 0; j < classes; ++j) refD.push_back((std::exp(row[j] - lse) - (j == labels[b])) / double(batch));
    }
    EXPECT_TRUE(check(loss, refLoss, kTol, "loss"));
    EXPECT_TRUE(check(mean, {refMean}, kTol, "mean loss"));
    EXPECT_TRUE(check(dlogits, refD, kTol, "dlogits"));
  }
}

// ---------------------------------------------------------------------------------------
// Linear: y = x·Wᵀ + b (+ relu), dx = dy·W, dW = dyᵀ·x, db = Σ dy

TEST_F(CpuModelKernels, Linear) {
  struct Case {
    int64_t batch, in, out;
  };
  for (Case c : {Case{3, 3136, 128}, Case{3, 128, 10}, Case{5, 37, 19}, Case{64, 128, 10}, Case{1, 1, 1}}) {
    for (bool relu : {false, true}) {
      SCOPED_TRACE(std::to_string(c.batch) + " x " + std::to_string(c.in) + " -> " + std::to_string(c.out) +
                   (relu ? " relu" : ""));
      std::vector<float> x = randomFloats(static_cast<size_t>(c.batch * c.in)), w = randomFloats(static_cast<size_t>(c.out * c.in), -0.1f, 0.1f);
      std::vector<float> b = randomFloats(static_cast<size_t>(c.out)), dy = randomFloats(static_cast<size_t>(c.batch * c.out));
      std::vector<float> y = poisoned(static_cast<size_t>(c.batch * c.out)), dx = poisoned(static_cast<size_t>(c.batch * c.in));
      std::vector<float> dw = poisoned(static_cast<size_t>(c.out * c.in)), db = poisoned(static_cast<size_t>(c.out));
      tk::Linear::forward(cpu, x.data(), w.data(), b.data(), y.data(), c.batch, c.in, c.out, relu);
      tk::Linear::backwardData(cpu, dy.data(), w.data(), dx.data(), c.batch, c.in, c.out);
      tk::Linear::backwardWeight(cpu, dy.data(), x.data(), dw.data(), c.batch, c.in, c.out);
      tk::Linear::backwardBias(cpu, dy.data(), db.data(), c.batch, c.out);
      std::vector<double> refY, refDx(static_cast<size_t>(c.batch * c.in), 0.0), refDw(static_cast<size_t>(c.out * c.in), 0.0),
          refDb(static_cast<size_t>(c.out), 0.0);
      for (int64_t i = 0; i < c.batch; ++i)
        for (int64_t o = 0; o < c.out; ++o) {
          double s = b[o];
          for (int64_t k = 0; k < c.in; ++k) s += double(x[i * c.in + k]) * w[o * c.in + k];
          refY.push_back(relu ? std::max(s, 0.0) : s);
          double g = dy[i * c.out + o];
          refDb[o] += g;
          for (int64_t k = 0; k < c.in; ++k) {
            refDx[i * c.in + k] += g * w[o * c.in + k];
            refDw[o * c.in + k] += g * x[i * c.in + k];
          }
        }
      EXPECT_TRUE(check(y, refY, kTol, "linear y"));
      EXPECT_TRUE(check(dx, refDx, kTol, "linear dx"));
      EXPECT_TRUE(check(dw, refDw, kTol, "linear dw"));
      EXPECT_TRUE(check(db, refDb, kTol, "linear db"));
    }
  }
}

// ---------------------------------------------------------------------------------------
// The fused classifier head: linear + cross-entropy, and the backward of both and of the
// relu before, against the float64 chain of the separate layers.

TEST_F(CpuModelKernels, LinearCrossEntropy) {
  struct Case {
    int64_t batch, in, classes;
  };
  // One program (batch <= 16) and several (the reduce), ragged rows, chunks and classes.
  for (Case c : {Case{3, 128, 10}, Case{64, 128, 10}, Case{100, 37, 19}, Case{16, 16, 16}, Case{17, 200, 32},
                 Case{1, 1, 1}, Case{uniformInt(1, 300), uniformInt(1, 300), uniformInt(1, 32)}}) {
    for (bool relu : {false, true}) {
      SCOPED_TRACE(std::to_string(c.batch) + " x " + std::to_string(c.in) + " -> " + std::to_string(c.classes) +
                   (relu ? " relu" : ""));
      const size_t B = size_t(c.batch), K = size_t(c.in), C = size_t(c.classes);
      // x as a relu's output when relu: about half exactly 0.
      std::vector<float> x = randomFloats(B * K);
      if (relu)
        for (float &v : x) v = std::max(v, 0.0f);
      std::vector<float> w = randomFloats(C * K, -0.3f, 0.3f), b = randomFloats(C);
      std::vector<int32_t> labels(B);
      for (int32_t &l : labels) l = int32_t(uniformInt(0, c.classes - 1));
      std::vector<float> logits = poisoned(B * C), dlogits = poisoned(B * C), dx = poisoned(B * K), dxT = poisoned(B * K),
                         dw = poisoned(C * K), db = poisoned(C), dxSum = poisoned(K), mean = poisoned(1),
                         work = poisoned(size_t(tk::LinearCrossEntropy::workspaceElements(c.batch, c.in, c.classes)));
      tk::LinearCrossEntropy::launch(cpu, x.data(), w.data(), b.data(), labels.data(), logits.data(), dlogits.data(),
                                     dx.data(), dw.data(), db.data(), dxSum.data(), mean.data(), c.batch, c.in,
                                     c.classes, relu, work.data(), int64_t(work.size()), dxT.data());
      std::vector<double> refZ(B * C), refDz(B * C), refDx(B * K, 0.0), refDw(C * K, 0.0), refDb(C, 0.0),
          refDxSum(K, 0.0);
      double refMean = 0;
      for (size_t i = 0; i < B; ++i) {
        double m = -1e300;
        for (size_t o = 0; o < C; ++o) {
          double s = b[o];
          for (size_t k = 0; k < K; ++k) s += double(x[i * K + k]) * w[o * K + k];
          refZ[i * C + o] = s;
          m = std::max(m, s);
        }
        double se = 0;
        for (size_t o = 0; o < C; ++o) se += std::exp(refZ[i * C + o] - m);
        const double lse = m + std::log(se);
        refMean += (lse - refZ[i * C + size_t(labels[i])]) / double(B);
        for (size_t o = 0; o < C; ++o) {
          const double g = (std::exp(refZ[i * C + o] - lse) - (int32_t(o) == labels[i])) / double(B);
          refDz[i * C + o] = g;
          refDb[o] += g;
          for (size_t k = 0; k < K; ++k) {
            refDx[i * K + k] += g * w[o * K + k];
            refDw[o * K + k] += g * x[i * K + k];
          }
        }
        for (size_t k = 0; k < K; ++k) {
          if (relu && !(x[i * K + k] > 0)) refDx[i * K + k] = 0;
          refDxSum[k] += refDx[i * K + k];
        }
      }
      EXPECT_TRUE(check(logits, refZ, kTol, "logits"));
      EXPECT_TRUE(check(dlogits, refDz, kTol, "dlogits"));
      EXPECT_TRUE(check(mean, {refMean}, kTol, "mean loss"));
      EXPECT_TRUE(check(dx, refDx, kTol, "dx"));
      EXPECT_TRUE(check(dw, refDw, kTol, "dw"));
      EXPECT_TRUE(check(db, refDb, kTol, "db"));
      EXPECT_TRUE(check(dxSum, refDxSum, kTol, "dx sum"));
      std::vector<double> refDxT(B * K);
      for (size_t i = 0; i < B; ++i)
        for (size_t k = 0; k < K; ++k) refDxT[k * B + i] = refDx[i * K + k];
      EXPECT_TRUE(check(dxT, refDxT, kTol, "dx transposed"));
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
    std::vector<float> x = randomFloats(static_cast<size_t>(c.n * c.cin * hw)), wt = randomFloats(static_cast<size_t>(c.cout * k), -0.3f, 0.3f);
    std::vector<float> bias = randomFloats(static_cast<size_t>(c.cout)), dy = randomFloats(static_cast<size_t>(c.n * c.cout * hw));
    std::vector<float> y = poisoned(dy.size()), dx = poisoned(x.size()), dw = poisoned(wt.size()),
                       db = poisoned(bias.size());
    std::vector<float> work =
        poisoned(static_cast<size_t>(tk::Conv2dBackwardWeight::workspaceElements(c.n, c.cin, c.h, c.w, c.cout)));
    tk::Conv2dForward::launch(cpu, x.data(), wt.data(), bias.data(), y.data(), c.n, c.cin, c.h, c.w, c.cout);
    tk::Conv2dBackwardData::launch(cpu, dy.data(), wt.data(), dx.data(), c.n, c.cin, c.h, c.w, c.cout);
    tk::Conv2dBackwardWeight::launch(cpu, x.data(), dy.data(), dw.data(), work.data(), int64_t(work.size()), c.n,
                                     c.cin, c.h, c.w, c.cout);
    tk::ChannelSum::launch(cpu, dy.data(), db.data(), c.n, c.cout, c.h, c.w);

    const ConvReference ref = convReference(c, x, wt, bias, dy);
    EXPECT_TRUE(check(y, ref.y, kTol, "conv y"));
    EXPECT_TRUE(check(dx, ref.dx, kTol, "conv dx"));
    EXPECT_TRUE(check(dw, ref.dw, kTol, "conv dw"));
    EXPECT_TRUE(check(db, ref.db, kTol, "conv db"));
    // With the tap-major weights (as MnistCnn runs conv2): the policy's tap-major tiles.
    std::vector<float> taps = poisoned(wt.size()), yT = poisoned(dy.size()), dxT = poisoned(x.size());
    tk::ConvWeightTaps::launch(cpu, wt.data(), taps.data(), c.cin, c.cout);
    tk::Conv2dForward::launch(cpu, x.data(), wt.data(), bias.data(), yT.data(), c.n, c.cin, c.h, c.w, c.cout, nullptr,
                              tk::ConvPrecision::Exact, taps.data());
    tk::Conv2dBackwardData::launch(cpu, dy.data(), wt.data(), dxT.data(), c.n, c.cin, c.h, c.w, c.cout, nullptr,
                                   tk::ConvPrecision::Exact, taps.data());
    EXPECT_TRUE(check(yT, ref.y, kTol, "conv y, tap-major weights"));
    EXPECT_TRUE(check(dxT, ref.dx, kTol, "conv dx, tap-major weights"));
  }
}

// The sum of split partials, in both of its tiles (wide: many outputs; tall: few outputs over
// many splits), against float64.
TEST_F(CpuModelKernels, SumPartials) {
  for (auto [len, splits] : std::vector<std::pair<int64_t, int64_t>>{{288, 883}, {64, 33}, {1000, 40}, {5000, 300},
                                                                     {7, 1}, {1025, 257}}) {
    SCOPED_TRACE(std::to_string(len) + " x " + std::to_string(splits) + " splits");
    std::vector<float> part = randomFloats(static_cast<size_t>(len * splits)), out = poisoned(static_cast<size_t>(len));
    tk::SumPartials::launch(cpu, part.data(), out.data(), len, splits);
    std::vector<double> ref(static_cast<size_t>(len), 0.0);
    for (int64_t s = 0; s < splits; ++s)
      for (int64_t j = 0; j < len; ++j) ref[size_t(j)] += part[size_t(s * len + j)];
    EXPECT_TRUE(check(out, ref, kTol, "sum of partials"));
  }
}

// Splitting the weight-gradient reduction over programs is deterministic: two runs agree
// bit for bit.
TEST_F(CpuModelKernels, Conv2dWeightGradientIsReproducible) {
  const int64_t n = 4, cin = 8, h = 28, w = 28, cout = 16;
  std::vector<float> x = randomFloats(static_cast<size_t>(n * cin * h * w)), dy = randomFloats(static_cast<size_t>(n * cout * h * w));
  std::vector<float> work(static_cast<size_t>(tk::Conv2dBackwardWeight::workspaceElements(n, cin, h, w, cout)));
  ASSERT_GT(work.size(), static_cast<size_t>(cout * cin * 9)) << "the case must split the reduction";
  std::vector<float> a = poisoned(static_cast<size_t>(cout * cin * 9)), b = poisoned(a.size());
  tk::Conv2dBackwardWeight::launch(cpu, x.data(), dy.data(), a.data(), work.data(), int64_t(work.size()), n, cin, h,
                                   w, cout);
  tk::Conv2dBackwardWeight::launch(cpu, x.data(), dy.data(), b.data(), work.data(), int64_t(work.size()), n, cin, h,
                                   w, cout);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(bitsOf(a[i]), bitsOf(b[i])) << i;
}

} // namespace
