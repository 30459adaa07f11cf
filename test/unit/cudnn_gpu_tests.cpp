// Every layer of the MNIST CNN, forward and backward, and one whole training step, against
// cuDNN (convolution, batchnorm, relu, pooling, (log-)softmax) and cuBLAS (linear layers, SGD)
// on fresh random inputs (label `gpu`; skipped without a GPU, failed where a GPU is present but
// cuDNN/cuBLAS cannot be loaded). Our kernels run through the ahead-of-time launcher (runtime
// only, for the GPU machine). Tensor cores are off on both sides (float32 FMA), so every
// result is held to ‖ours − ref‖/‖ref‖ ≤ 1e-5; outputs are poisoned with NaN before each run
// and a non-finite value fails. Each comparison prints one `cudnn-check` line (the closing
// notes quote them).
#include "cudnn_layers.h"
#include "cudnn_mnist.h"
#include "models_mnist_reference.h"

#include "tile/kernels/AotLauncher.h"
#include "tile/kernels/BatchNorm.h"
#include "tile/kernels/BatchNormSplit.h"
#include "tile/kernels/Conv.h"
#include "tile/kernels/Linear.h"
#include "tile/kernels/LinearCrossEntropy.h"
#include "tile/kernels/Loss.h"
#include "tile/kernels/Matmul.h"
#include "tile/kernels/MaxPool.h"
#include "tile/kernels/Relu.h"
#include "tile/kernels/Sgd.h"
#include "tile/kernels/Softmax.h"
#include "tile/runtime/Driver.h"
#include "tile/HalfBits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>

namespace tk = tile::kernels;
using tile::reference::CudnnLayers;
using tile::reference::CudnnMnist;
using tile::rt::DeviceBuffer;

namespace {

constexpr double kTol = 1e-5;

/// A float32 device tensor: random, poisoned (all bits set: NaN) or downloaded.
struct Dev {
  DeviceBuffer buf;
  size_t n = 0;
  explicit Dev(size_t count) : buf(count * sizeof(float)), n(count) { poison(); }
  static std::vector<float> randomHost(size_t count, uint64_t seed, float scale = 1.0f, float shift = 0.0f) {
    std::mt19937_64 gen(seed);
    std::normal_distribution<float> d(shift, scale);
    std::vector<float> v(count);
    for (float &x : v) x = d(gen);
    return v;
  }
  static Dev random(size_t count, uint64_t seed, float scale = 1.0f, float shift = 0.0f) {
    std::vector<float> v = randomHost(count, seed, scale, shift);
    Dev t(count);
    t.buf.copyFromHost(v.data(), count * sizeof(float));
    return t;
  }
  void poison() { buf.fillBytes(0xFF); }
  std::vector<float> get() const { return buf.toHost<float>(n); }
  uint64_t ptr() const { return buf.ptr(); }
};

double relError(const std::vector<float> &got, const std::vector<float> &ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(got[i]) || !std::isfinite(ref[i])) return INFINITY;
    double d = double(got[i]) - double(ref[i]);
    num += d * d, den += double(ref[i]) * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

/// ours against the oracle: one `cudnn-check` line, and a failure above kTol.
void expectClose(const std::string &what, const std::vector<float> &ours, const std::vector<float> &ref,
                 double tol = kTol) {
  ASSERT_EQ(ours.size(), ref.size()) << what;
  double e = relError(ours, ref);
  std::printf("cudnn-check %-44s rel err %.2e\n", what.c_str(), e);
  EXPECT_LE(e, tol) << what;
}
void expectClose(const std::string &what, const Dev &ours, const Dev &ref, double tol = kTol) {
  expectClose(what, ours.get(), ref.get(), tol);
}
/// Max pooling routes each window's gradient to its largest input: where two inputs of a
/// window are within rounding of each other (relative 1e-5 in the oracle's pre-pool tensor
/// `r`, [n, c, hw, hw]), the two sides may rightly route to different ones. Those windows'
/// gradients (in both `ours` and `ref`) are zeroed before comparing; returns how many. A
/// routing difference anywhere else still fails the comparison.
size_t dropNearTiePools(std::vector<float> &ours, std::vector<float> &ref, const std::vector<float> &r, int n, int c,
                        int hw) {
  size_t dropped = 0;
  const int ph = hw / 2;
  for (int plane = 0; plane < n * c; ++plane)
    for (int py = 0; py < ph; ++py)
      for (int px = 0; px < ph; ++px) {
        size_t at[4];
        float top = -INFINITY;
        for (int k = 0; k < 4; ++k) {
          at[k] = (size_t(plane) * hw + 2 * py + k / 2) * hw + 2 * px + k % 2;
          top = std::max(top, r[at[k]]);
        }
        int near = 0;
        for (size_t i : at) near += r[i] >= top - 1e-5f * std::max(1.0f, std::fabs(top));
        if (near < 2 || top <= 0.0f) continue; // no tie, or relu's zeros: no gradient either side
        ++dropped;
        for (size_t i : at) ours[i] = ref[i] = 0.0f;
      }
  return dropped;
}
void expectCloseOffTies(const std::string &what, const Dev &ours, const Dev &ref, const Dev &r, int n, int c, int hw) {
  std::vector<float> o = ours.get(), f = ref.get();
  const size_t dropped = dropNearTiePools(o, f, r.get(), n, c, hw);
  EXPECT_LE(dropped, size_t(n) * c * (hw / 2) * (hw / 2) / 1000) << what << ": too many near-tie windows";
  expectClose(what + (dropped ? " (" + std::to_string(dropped) + " tie windows)" : ""), o, f);
}

/// TF32 tensor-core inputs (10 mantissa bits) against cuDNN's exact f32: the bound
/// docs/models.md allows when TF32 is used. A result as close as exact f32 would be
/// suspicious too (TF32 not in effect): below 1e-6 fails.
constexpr double kTf32Tol = 1e-3;
void expectTf32Close(const std::string &what, const Dev &ours, const Dev &ref) {
  std::vector<float> o = ours.get(), r = ref.get();
  expectClose(what, o, r, kTf32Tol);
  EXPECT_GT(relError(o, r), 1e-6) << what << ": as exact as f32, TF32 not in effect?";
}

/// The bias gradient of a convolution that feeds a batchnorm is mathematically zero (the
/// batchnorm's dx sums to zero over each channel), so both sides hold rounding noise and their
/// relative difference means nothing. Both are held instead to 1e-5 of the magnitude of what
/// was summed: per channel, Σ|dconv| over (n, h, w).
void expectCancelledSum(const std::string &what, const std::vector<float> &ours, const std::vector<float> &ref,
                        const std::vector<float> &dconv, int c, int hw) {
  std::vector<double> mass(size_t(c), 0.0);
  for (size_t i = 0; i < dconv.size(); ++i) mass[(i / size_t(hw)) % size_t(c)] += std::fabs(dconv[i]);
  double scale = 0, diff = 0, refNorm = 0, oursNorm = 0;
  bool finite = true;
  for (size_t k = 0; k < size_t(c); ++k) {
    finite = finite && std::isfinite(ours[k]) && std::isfinite(ref[k]);
    scale += mass[k] * mass[k];
    diff += (double(ours[k]) - ref[k]) * (double(ours[k]) - ref[k]);
    refNorm += double(ref[k]) * ref[k], oursNorm += double(ours[k]) * ours[k];
  }
  scale = std::sqrt(scale);
  double e = finite ? std::sqrt(diff) / scale : INFINITY;
  std::printf("cudnn-check %-44s err/Σ|dconv| %.2e (|ours| %.1e, |cuDNN| %.1e)\n", what.c_str(), e,
              std::sqrt(oursNorm) / scale, std::sqrt(refNorm) / scale);
  EXPECT_LE(e, kTol) << what;
  EXPECT_LE(std::sqrt(oursNorm) / scale, kTol) << what << ": not the zero a batchnorm after the convolution implies";
}

class CudnnReference : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    std::string why;
    if (!tile::rt::gpuAvailable(&why)) return;
    try {
      layers_ = std::make_unique<CudnnLayers>();
      std::printf("cudnn-check oracle: %s\n", layers_->versions().c_str());
    } catch (const std::exception &e) { loadError_ = e.what(); }
  }
  static void TearDownTestSuite() { layers_.reset(); }
  void SetUp() override {
    std::string why;
    if (!tile::rt::gpuAvailable(&why)) GTEST_SKIP() << "no GPU: " << why;
    // A GPU without its oracle checks nothing: fail, naming what is missing.
    ASSERT_TRUE(layers_) << loadError_;
  }
  CudnnLayers &dnn() { return *layers_; }
  tk::AotLauncher gpu;
  static std::unique_ptr<CudnnLayers> layers_;
  static std::string loadError_;
};
std::unique_ptr<CudnnLayers> CudnnReference::layers_;
std::string CudnnReference::loadError_;

struct ConvShape {
  const char *name;
  int cin, hw, cout;
};
// The model's two convolutions; batch 64 (training) and 5 (ragged pixel tiles).
const ConvShape kConvs[] = {{"conv1", 1, 28, 32}, {"conv2", 32, 14, 64}};
const int kBatches[] = {5, 64};

std::string label(const char *layer, const char *what, int n) {
  return std::string(layer) + "." + what + " B=" + std::to_string(n);
}

TEST_F(CudnnReference, ConvolutionForwardAndBackward) {
  uint64_t seed = 1;
  for (const ConvShape &s : kConvs)
    for (int n : kBatches) {
      const size_t in = size_t(n) * s.cin * s.hw * s.hw, out = size_t(n) * s.cout * s.hw * s.hw;
      const size_t wn = size_t(s.cout) * s.cin * 9, couts = size_t(s.cout);
      Dev x = Dev::random(in, seed++), w = Dev::random(wn, seed++, 0.3f), b = Dev::random(size_t(s.cout), seed++);
      Dev dy = Dev::random(out, seed++);
      Dev y(out), yRef(out);
      tk::Conv2dForward::launch(gpu, x.ptr(), w.ptr(), b.ptr(), y.ptr(),
                                {.n = n, .cin = s.cin, .h = s.hw, .w = s.hw, .cout = s.cout});
      dnn().convForward(x.ptr(), w.ptr(), b.ptr(), yRef.ptr(), n, s.cin, s.hw, s.hw, s.cout);
      expectClose(label(s.name, "forward y", n), y, yRef);

      Dev dx(in), dxRef(in);
      tk::Conv2dBackwardData::launch(gpu, dy.ptr(), w.ptr(), dx.ptr(),
                                     {.n = n, .cin = s.cin, .h = s.hw, .w = s.hw, .cout = s.cout});
      dnn().convBackwardData(dy.ptr(), w.ptr(), dxRef.ptr(), n, s.cin, s.hw, s.hw, s.cout);
      expectClose(label(s.name, "backward dx", n), dx, dxRef);

      Dev dw(wn), dwRef(wn);
      Dev work(size_t(tk::Conv2dBackwardWeight::workspaceElements(n, s.cin, s.hw, s.hw, s.cout)));
      tk::Conv2dBackwardWeight::launch(gpu, x.ptr(), dy.ptr(), dw.ptr(), work.ptr(), int64_t(work.n),
                                       {.n = n, .cin = s.cin, .h = s.hw, .w = s.hw, .cout = s.cout});
      dnn().convBackwardWeight(x.ptr(), dy.ptr(), dwRef.ptr(), n, s.cin, s.hw, s.hw, s.cout);
      expectClose(label(s.name, "backward dweight", n), dw, dwRef);

      // TF32 tensor cores (ConvPrecision::Tf32), against the same cuDNN results.
      const tk::ConvPrecision tf32 = tk::ConvPrecision::Tf32;
      Dev yT(out), dxT(in), dwT(wn);
      tk::Conv2dForward::launch(gpu, x.ptr(), w.ptr(), b.ptr(), yT.ptr(),
                                {.n = n, .cin = s.cin, .h = s.hw, .w = s.hw, .cout = s.cout, .precision = tf32});
      tk::Conv2dBackwardData::launch(gpu, dy.ptr(), w.ptr(), dxT.ptr(),
                                     {.n = n, .cin = s.cin, .h = s.hw, .w = s.hw, .cout = s.cout, .precision = tf32});
      tk::Conv2dBackwardWeight::launch(gpu, x.ptr(), dy.ptr(), dwT.ptr(), work.ptr(), int64_t(work.n),
                                       {.n = n, .cin = s.cin, .h = s.hw, .w = s.hw, .cout = s.cout, .precision = tf32});
      expectTf32Close(label(s.name, "forward y tf32", n), yT, yRef);
      expectTf32Close(label(s.name, "backward dx tf32", n), dxT, dxRef);
      expectTf32Close(label(s.name, "backward dweight tf32", n), dwT, dwRef);

      // With the weights' tap-major copy (as MnistCnn runs conv2): the tap-major policy tiles.
      Dev taps(wn), yW(out), dxW(in), yWT(out), dxWT(in);
      tk::ConvWeightTaps::launch(gpu, w.ptr(), taps.ptr(), s.cin, s.cout);
      tk::Conv2dForward::launch(gpu, x.ptr(), w.ptr(), b.ptr(), yW.ptr(),
                                {.n = n, .cin = s.cin, .h = s.hw, .w = s.hw, .cout = s.cout, .weightTaps = taps.ptr()});
      tk::Conv2dBackwardData::launch(
          gpu, dy.ptr(), w.ptr(), dxW.ptr(),
          {.n = n, .cin = s.cin, .h = s.hw, .w = s.hw, .cout = s.cout, .weightTaps = taps.ptr()});
      tk::Conv2dForward::launch(
          gpu, x.ptr(), w.ptr(), b.ptr(), yWT.ptr(),
          {.n = n, .cin = s.cin, .h = s.hw, .w = s.hw, .cout = s.cout, .precision = tf32, .weightTaps = taps.ptr()});
      tk::Conv2dBackwardData::launch(
          gpu, dy.ptr(), w.ptr(), dxWT.ptr(),
          {.n = n, .cin = s.cin, .h = s.hw, .w = s.hw, .cout = s.cout, .precision = tf32, .weightTaps = taps.ptr()});
      expectClose(label(s.name, "forward y, tap-major weights", n), yW, yRef);
      expectClose(label(s.name, "backward dx, tap-major weights", n), dxW, dxRef);
      expectTf32Close(label(s.name, "forward y tf32, tap-major weights", n), yWT, yRef);
      expectTf32Close(label(s.name, "backward dx tf32, tap-major weights", n), dxWT, dxRef);

      Dev db(couts), dbRef(couts);
      tk::ChannelSum::launch(gpu, dy.ptr(), db.ptr(), n, s.cout, s.hw, s.hw);
      dnn().convBackwardBias(dy.ptr(), dbRef.ptr(), n, s.cout, s.hw, s.hw);
      expectClose(label(s.name, "backward dbias", n), db, dbRef);
    }
}

// Every tile each convolution kernel declares (the policy's and bench_conv's sweep), in both
// precisions, against cuDNN: the tiles the policy does not pick today are still compiled code
// a launch may ask for (launchTile). Batch 5: ragged against every tile.
TEST_F(CudnnReference, EveryDeclaredConvolutionTile) {
  uint64_t seed = 400;
  const int n = 5;
  for (const ConvShape &s : kConvs) {
    const size_t in = size_t(n) * s.cin * s.hw * s.hw, out = size_t(n) * s.cout * s.hw * s.hw;
    const size_t wn = size_t(s.cout) * s.cin * 9;
    Dev x = Dev::random(in, seed++), w = Dev::random(wn, seed++, 0.3f), b = Dev::random(size_t(s.cout), seed++);
    Dev dy = Dev::random(out, seed++);
    Dev yRef(out), dxRef(in), dwRef(wn);
    dnn().convForward(x.ptr(), w.ptr(), b.ptr(), yRef.ptr(), n, s.cin, s.hw, s.hw, s.cout);
    dnn().convBackwardData(dy.ptr(), w.ptr(), dxRef.ptr(), n, s.cin, s.hw, s.hw, s.cout);
    dnn().convBackwardWeight(x.ptr(), dy.ptr(), dwRef.ptr(), n, s.cin, s.hw, s.hw, s.cout);
    Dev work(size_t(tk::Conv2dBackwardWeight::workspaceElements(n, s.cin, s.hw, s.hw, s.cout)));
    Dev taps(wn); // the tap-major copy the tap-major tiles read
    tk::ConvWeightTaps::launch(gpu, w.ptr(), taps.ptr(), s.cin, s.cout);
    for (tk::ConvPrecision p : {tk::ConvPrecision::Exact, tk::ConvPrecision::Tf32}) {
      auto check = [&](const std::string &what, tk::ConvTile t, const Dev &ours, const Dev &ref) {
        const std::string name = std::string(s.name) + " " + what + " " + tk::convTileName(t);
        if (p == tk::ConvPrecision::Tf32) expectTf32Close(name + " tf32", ours, ref);
        else expectClose(name, ours, ref);
      };
      for (tk::ConvTile t : tk::Conv2dForward::tiles(p)) {
        Dev y(out);
        tk::Conv2dForward::launchTile(
            gpu, t, x.ptr(), w.ptr(), b.ptr(), y.ptr(), nullptr,
            {.n = n, .cin = s.cin, .h = s.hw, .w = s.hw, .cout = s.cout, .precision = p, .weightTaps = taps.ptr()});
        check("forward y", t, y, yRef);
      }
      for (tk::ConvTile t : tk::Conv2dBackwardData::tiles(p)) {
        if (s.cin == 1) break; // the model needs no data gradient of its first layer; conv2's covers it
        Dev dx(in);
        tk::Conv2dBackwardData::launchTile(
            gpu, t, dy.ptr(), w.ptr(), dx.ptr(),
            {.n = n, .cin = s.cin, .h = s.hw, .w = s.hw, .cout = s.cout, .precision = p, .weightTaps = taps.ptr()});
        check("backward dx", t, dx, dxRef);
      }
      for (tk::ConvTile t : tk::Conv2dBackwardWeight::tiles(p)) {
        Dev dw(wn);
        tk::Conv2dBackwardWeight::launchTile(
            gpu, t, x.ptr(), dy.ptr(), dw.ptr(), work.ptr(), int64_t(work.n),
            {.n = n, .cin = s.cin, .h = s.hw, .w = s.hw, .cout = s.cout, .precision = p});
        check("backward dweight", t, dw, dwRef);
      }
    }
  }
}

// Batchnorm alone (statistics in two passes over x), forward and backward.
TEST_F(CudnnReference, BatchNormForwardAndBackward) {
  uint64_t seed = 100;
  for (const ConvShape &s : kConvs)
    for (int n : kBatches) {
      const int c = s.cout, hw = s.hw;
      const size_t cs = size_t(c);
      const size_t count = size_t(n) * c * hw * hw;
      // Off-centre, scaled input: the mean must not cancel.
      Dev x = Dev::random(count, seed++, 2.0f, 3.0f), dy = Dev::random(count, seed++);
      Dev gamma = Dev::random(size_t(c), seed++, 0.5f, 1.0f), beta = Dev::random(size_t(c), seed++);
      Dev y(count), mean(cs), rstd(cs), yRef(count), meanRef(cs), invRef(cs);
      tk::BatchNorm2dForward::launch(gpu, x.ptr(), y.ptr(), gamma.ptr(), beta.ptr(), mean.ptr(), rstd.ptr(), n, c, hw,
                                     hw, 1e-5f, /*relu=*/false);
      dnn().batchNormForward(x.ptr(), yRef.ptr(), gamma.ptr(), beta.ptr(), meanRef.ptr(), invRef.ptr(), n, c, hw, hw,
                             1e-5);
      const char *bn = c == 32 ? "bn1" : "bn2";
      expectClose(label(bn, "forward y", n), y, yRef);
      expectClose(label(bn, "forward mean", n), mean, meanRef);
      expectClose(label(bn, "forward 1/sqrt(var+eps)", n), rstd, invRef);

      Dev dx(count), dg(cs), dbeta(cs), dxRef(count), dgRef(cs), dbetaRef(cs);
      tk::BatchNorm2dBackward::launch(gpu, x.ptr(), dy.ptr(), gamma.ptr(), beta.ptr(), mean.ptr(), rstd.ptr(), dx.ptr(),
                                      dg.ptr(), dbeta.ptr(), n, c, hw, hw, /*relu=*/false);
      dnn().batchNormBackward(x.ptr(), dy.ptr(), gamma.ptr(), dxRef.ptr(), dgRef.ptr(), dbetaRef.ptr(), meanRef.ptr(),
                              invRef.ptr(), n, c, hw, hw, 1e-5);
      expectClose(label(bn, "backward dx", n), dx, dxRef);
      expectClose(label(bn, "backward dgamma", n), dg, dgRef);
      expectClose(label(bn, "backward dbeta", n), dbeta, dbetaRef);
    }
}

// The model's fused path: conv (+ partial statistics) -> batchnorm + relu + 2x2 max pool in one
// kernel, and its backward (pool routing + relu mask + batchnorm, whose dx sum is the conv's
// bias gradient), against cuDNN's conv, batchnorm, activation and pooling one after another.
TEST_F(CudnnReference, FusedConvBatchNormReluPool) {
  uint64_t seed = 200;
  for (const ConvShape &s : kConvs)
    for (int n : kBatches) {
      const int c = s.cout, hw = s.hw, ph = hw / 2;
      const size_t cs = size_t(c);
      const size_t in = size_t(n) * s.cin * hw * hw, count = size_t(n) * c * hw * hw, pooled = size_t(n) * c * ph * ph;
      Dev x = Dev::random(in, seed++), w = Dev::random(size_t(c) * s.cin * 9, seed++, 0.3f);
      Dev b = Dev::random(size_t(c), seed++), gamma = Dev::random(size_t(c), seed++, 0.5f, 1.0f);
      Dev beta = Dev::random(size_t(c), seed++), dp = Dev::random(pooled, seed++);
      // Ours: as MnistCnn::forward/backward run it.
      Dev conv(count), stats(size_t(tk::Conv2dForward::statsElements(n, hw, hw, c))), p(pooled), mean(cs), rstd(cs);
      DeviceBuffer argmax(pooled);
      tk::Conv2dForward::launchWithStats(gpu, x.ptr(), w.ptr(), b.ptr(), conv.ptr(), stats.ptr(),
                                         {.n = n, .cin = s.cin, .h = hw, .w = hw, .cout = c});
      tk::ChannelStats st = tk::Conv2dForward::channelStats(stats.ptr(), n, s.cin, hw, hw, tk::ConvPrecision::Exact);
      tk::BatchNorm2dForward::launchPooled(gpu, conv.ptr(), p.ptr(), argmax.ptr(), gamma.ptr(), beta.ptr(), mean.ptr(),
                                           rstd.ptr(), n, c, hw, hw, 1e-5f, /*relu=*/true, &st);
      Dev dconv(count), dg(cs), dbeta(cs), dbias(cs);
      tk::BatchNorm2dBackward::launchPooled(gpu, conv.ptr(), dp.ptr(), argmax.ptr(), gamma.ptr(), beta.ptr(),
                                            mean.ptr(), rstd.ptr(), dconv.ptr(), dg.ptr(), dbeta.ptr(), n, c, hw, hw,
                                            /*relu=*/true, dbias.ptr());
      // cuDNN, layer by layer.
      Dev convRef(count), y(count), r(count), pRef(pooled), meanRef(cs), invRef(cs);
      dnn().convForward(x.ptr(), w.ptr(), b.ptr(), convRef.ptr(), n, s.cin, hw, hw, c);
      dnn().batchNormForward(convRef.ptr(), y.ptr(), gamma.ptr(), beta.ptr(), meanRef.ptr(), invRef.ptr(), n, c, hw, hw,
                             1e-5);
      dnn().reluForward(y.ptr(), r.ptr(), n, c, hw, hw);
      dnn().maxPoolForward(r.ptr(), pRef.ptr(), n, c, hw, hw);
      Dev dr(count), dy(count), dconvRef(count), dgRef(cs), dbetaRef(cs), dbiasRef(cs);
      dnn().maxPoolBackward(pRef.ptr(), dp.ptr(), r.ptr(), dr.ptr(), n, c, hw, hw);
      dnn().reluBackward(r.ptr(), dr.ptr(), y.ptr(), dy.ptr(), n, c, hw, hw);
      dnn().batchNormBackward(convRef.ptr(), dy.ptr(), gamma.ptr(), dconvRef.ptr(), dgRef.ptr(), dbetaRef.ptr(),
                              meanRef.ptr(), invRef.ptr(), n, c, hw, hw, 1e-5);
      dnn().convBackwardBias(dconvRef.ptr(), dbiasRef.ptr(), n, c, hw, hw);
      const std::string layer = std::string(s.name) + "+bn+relu+pool";
      expectClose(label(layer.c_str(), "forward y", n), p, pRef);
      expectClose(label(layer.c_str(), "forward mean", n), mean, meanRef);
      expectClose(label(layer.c_str(), "forward 1/sqrt(var+eps)", n), rstd, invRef);
      expectCloseOffTies(label(layer.c_str(), "backward dconv", n), dconv, dconvRef, r, n, c, hw);
      expectClose(label(layer.c_str(), "backward dgamma", n), dg, dgRef);
      expectClose(label(layer.c_str(), "backward dbeta", n), dbeta, dbetaRef);
      expectCancelledSum(label(layer.c_str(), "backward dbias", n), dbias.get(), dbiasRef.get(), dconvRef.get(), c,
                         hw * hw);

      // The same through the kernels MnistCnn runs: each channel split over programs
      // (BatchNormSplit.h), partial sums combined in a fixed order.
      Dev work(size_t(tk::BatchNormSplit::workspaceElements(n, c, hw, hw, st.rows)));
      Dev pS(pooled), meanS(cs), rstdS(cs), dconvS(count), dgS(cs), dbetaS(cs), dbiasS(cs);
      DeviceBuffer argmaxS(pooled);
      tk::BatchNorm2dForwardSplit::launch(gpu, conv.ptr(), pS.ptr(), argmaxS.ptr(), gamma.ptr(), beta.ptr(),
                                          meanS.ptr(), rstdS.ptr(), st, work.ptr(), int64_t(work.n), n, c, hw, hw,
                                          1e-5f,
                                          /*relu=*/true, /*pool=*/true);
      tk::BatchNorm2dBackwardSplit::launch(gpu, conv.ptr(), dp.ptr(), argmaxS.ptr(), gamma.ptr(), beta.ptr(),
                                           meanS.ptr(), rstdS.ptr(), dconvS.ptr(), dgS.ptr(), dbetaS.ptr(),
                                           dbiasS.ptr(), work.ptr(), int64_t(work.n), n, c, hw, hw, /*relu=*/true,
                                           /*pool=*/true);
      const std::string split = layer + " split";
      expectClose(label(split.c_str(), "forward y", n), pS, pRef);
      expectClose(label(split.c_str(), "forward mean", n), meanS, meanRef);
      expectClose(label(split.c_str(), "forward 1/sqrt(var+eps)", n), rstdS, invRef);
      expectCloseOffTies(label(split.c_str(), "backward dconv", n), dconvS, dconvRef, r, n, c, hw);
      expectClose(label(split.c_str(), "backward dgamma", n), dgS, dgRef);
      expectClose(label(split.c_str(), "backward dbeta", n), dbetaS, dbetaRef);
      expectCancelledSum(label(split.c_str(), "backward dbias", n), dbiasS.get(), dbiasRef.get(), dconvRef.get(), c,
                         hw * hw);
    }
}

TEST_F(CudnnReference, ReluAndMaxPool) {
  const int n = 64, c = 32, hw = 28;
  const size_t count = size_t(n) * c * hw * hw, pooled = count / 4;
  Dev x = Dev::random(count, 300), dy = Dev::random(count, 301), dp = Dev::random(pooled, 302);
  Dev y(count), yRef(count), dx(count), dxRef(count);
  tk::ReluForward::launch(gpu, x.ptr(), y.ptr(), int64_t(count));
  dnn().reluForward(x.ptr(), yRef.ptr(), n, c, hw, hw);
  expectClose(label("relu", "forward y", n), y, yRef);
  tk::ReluBackward::launch(gpu, y.ptr(), dy.ptr(), dx.ptr(), int64_t(count));
  dnn().reluBackward(yRef.ptr(), dy.ptr(), x.ptr(), dxRef.ptr(), n, c, hw, hw);
  expectClose(label("relu", "backward dx", n), dx, dxRef);

  // Continuous random inputs: no ties inside a window, so the argmax is unambiguous.
  Dev p(pooled), pRef(pooled), dxp(count), dxpRef(count);
  DeviceBuffer argmax(pooled);
  tk::MaxPool2dForward::launch(gpu, x.ptr(), p.ptr(), argmax.ptr(), n, c, hw, hw);
  dnn().maxPoolForward(x.ptr(), pRef.ptr(), n, c, hw, hw);
  expectClose(label("maxpool", "forward y", n), p, pRef);
  tk::MaxPool2dBackward::launch(gpu, dp.ptr(), argmax.ptr(), dxp.ptr(), n, c, hw, hw);
  dnn().maxPoolBackward(pRef.ptr(), dp.ptr(), x.ptr(), dxpRef.ptr(), n, c, hw, hw);
  expectClose(label("maxpool", "backward dx", n), dxp, dxpRef);
}

// log-softmax + NLL (one kernel of ours) against cuDNN's log-softmax, the NLL of its output
// and cuDNN's log-softmax backward of the NLL's gradient; and the plain softmax kernel.
TEST_F(CudnnReference, LogSoftmaxLossAndSoftmax) {
  for (int n : {5, 64, 1024}) {
    const int classes = 10;
    const size_t count = size_t(n) * classes;
    Dev z = Dev::random(count, 400 + uint64_t(n), 3.0f);
    const size_t rows = size_t(n);
    std::vector<int32_t> labels(rows);
    std::mt19937 gen{uint32_t(n)};
    for (int32_t &l : labels) l = int32_t(gen() % classes);
    DeviceBuffer lab = DeviceBuffer::fromHost(labels);
    Dev loss{size_t(n)}, mean(1), dz(count);
    tk::CrossEntropy::launch(gpu, z.ptr(), lab.ptr(), loss.ptr(), mean.ptr(), dz.ptr(), n, classes);

    Dev logp(count), dzRef(count);
    dnn().logSoftmaxForward(z.ptr(), logp.ptr(), n, classes);
    std::vector<float> lp = logp.get(), lossRef(rows), dlogp(count, 0.0f);
    double total = 0;
    for (int b = 0; b < n; ++b) {
      lossRef[size_t(b)] = -lp[size_t(b) * classes + size_t(labels[size_t(b)])];
      total += lossRef[size_t(b)];
      dlogp[size_t(b) * classes + size_t(labels[size_t(b)])] = -1.0f / float(n);
    }
    DeviceBuffer dl = DeviceBuffer::fromHost(dlogp);
    dnn().logSoftmaxBackward(logp.ptr(), dl.ptr(), dzRef.ptr(), n, classes);
    expectClose(label("loss", "per-sample NLL", n), loss.get(), lossRef);
    expectClose(label("loss", "mean NLL", n), mean.get(), std::vector<float>{float(total / n)});
    expectClose(label("loss", "backward dlogits", n), dz, dzRef);

    Dev sm(count), smRef(count);
    tk::Softmax::launch(gpu, sm.ptr(), z.ptr(), n, classes, classes, classes);
    dnn().softmaxForward(z.ptr(), smRef.ptr(), n, classes);
    expectClose(label("softmax", "forward y", n), sm, smRef);
  }
}

// The fused classifier head (LinearCrossEntropy, MnistCnn's fc2 + loss + their backward and
// fc1's relu backward) against the chain of separate references: cuBLAS's linear layer,
// cuDNN's log-softmax and its backward, cuBLAS's gradients, cuDNN's relu backward. One
// program (batch 5, 16) and several with the partial sums added after (64, 1000, 1024).
TEST_F(CudnnReference, FusedClassifierHead) {
  const int in = 128, classes = 10;
  uint64_t seed = 450;
  for (int n : {5, 16, 64, 1000, 1024}) {
    const size_t xs = size_t(n) * in, zs = size_t(n) * classes;
    std::vector<float> xh = Dev::randomHost(xs, seed++);
    for (float &v : xh) v = std::max(v, 0.0f); // a relu's output
    Dev x(xs), w = Dev::random(size_t(classes) * in, seed++, 0.1f), b = Dev::random(size_t(classes), seed++);
    x.buf.copyFromHost(xh.data(), xs * sizeof(float));
    std::vector<int32_t> labels(static_cast<size_t>(n));
    std::mt19937 gen{uint32_t(seed++)};
    for (int32_t &l : labels) l = int32_t(gen() % classes);
    DeviceBuffer lab = DeviceBuffer::fromHost(labels);
    Dev z(zs), dz(zs), dx(xs), dxT(xs), dw(size_t(classes) * in), db(static_cast<size_t>(classes)),
        dxSum(static_cast<size_t>(in)), mean(1);
    Dev work(size_t(std::max<int64_t>(1, tk::LinearCrossEntropy::workspaceElements(n, in, classes))));
    tk::LinearCrossEntropy::launch(gpu, x.ptr(), w.ptr(), b.ptr(), lab.ptr(), z.ptr(), dz.ptr(), dx.ptr(), dw.ptr(),
                                   db.ptr(), dxSum.ptr(), mean.ptr(), n, in, classes, /*relu=*/true, work.ptr(),
                                   int64_t(work.n), dxT.ptr());

    Dev zRef(zs), logp(zs), dzRef(zs), dwRef(size_t(classes) * in), dbRef(static_cast<size_t>(classes)), dh(xs),
        dxRef(xs), dxSumRef(static_cast<size_t>(in));
    dnn().linearForward(x.ptr(), w.ptr(), b.ptr(), zRef.ptr(), n, in, classes);
    dnn().logSoftmaxForward(zRef.ptr(), logp.ptr(), n, classes);
    std::vector<float> lp = logp.get(), dlogp(zs, 0.0f);
    double total = 0;
    for (int r = 0; r < n; ++r) {
      total -= lp[size_t(r) * classes + size_t(labels[size_t(r)])];
      dlogp[size_t(r) * classes + size_t(labels[size_t(r)])] = -1.0f / float(n);
    }
    DeviceBuffer dl = DeviceBuffer::fromHost(dlogp);
    dnn().logSoftmaxBackward(logp.ptr(), dl.ptr(), dzRef.ptr(), n, classes);
    dnn().linearBackwardWeight(dzRef.ptr(), x.ptr(), dwRef.ptr(), n, in, classes);
    dnn().linearBackwardBias(dzRef.ptr(), dbRef.ptr(), n, classes);
    dnn().linearBackwardData(dzRef.ptr(), w.ptr(), dh.ptr(), n, in, classes);
    dnn().reluBackward(x.ptr(), dh.ptr(), x.ptr(), dxRef.ptr(), n, in, 1, 1);
    dnn().linearBackwardBias(dxRef.ptr(), dxSumRef.ptr(), n, in);
    expectClose(label("head", "logits", n), z, zRef);
    expectClose(label("head", "mean NLL", n), mean.get(), std::vector<float>{float(total / n)});
    expectClose(label("head", "dlogits", n), dz, dzRef);
    expectClose(label("head", "fc2 dweight", n), dw, dwRef);
    expectClose(label("head", "fc2 dbias", n), db, dbRef);
    expectClose(label("head", "relu(fc1) dx", n), dx, dxRef);
    expectClose(label("head", "fc1 dbias (dx sum)", n), dxSum, dxSumRef);
    std::vector<float> dxRefT(xs), dxRefH = dxRef.get();
    for (size_t r = 0; r < size_t(n); ++r)
      for (size_t k = 0; k < size_t(in); ++k) dxRefT[k * size_t(n) + r] = dxRefH[r * size_t(in) + k];
    expectClose(label("head", "relu(fc1) dx transposed", n), dxT.get(), dxRefT);
  }
}

TEST_F(CudnnReference, LinearForwardAndBackward) {
  struct Shape {
    const char *name;
    int in, out;
    bool relu;
  };
  uint64_t seed = 500;
  for (Shape s : {Shape{"fc1", 3136, 128, true}, Shape{"fc2", 128, 10, false}})
    for (int n : {5, 64, 1024}) {
      const size_t outs = size_t(s.out);
      Dev x = Dev::random(size_t(n) * s.in, seed++), w = Dev::random(size_t(s.out) * s.in, seed++, 0.05f);
      Dev b = Dev::random(size_t(s.out), seed++), dy = Dev::random(size_t(n) * s.out, seed++);
      Dev y(size_t(n) * s.out), yRef(size_t(n) * s.out);
      tk::Linear::forward(gpu, x.ptr(), w.ptr(), b.ptr(), y.ptr(), n, s.in, s.out, s.relu);
      dnn().linearForward(x.ptr(), w.ptr(), b.ptr(), yRef.ptr(), n, s.in, s.out);
      if (s.relu) dnn().reluForward(yRef.ptr(), yRef.ptr(), n, s.out, 1, 1);
      expectClose(label(s.name, s.relu ? "forward relu(xW^T+b)" : "forward xW^T+b", n), y, yRef);
      // As MnistCnn runs fc1: K split over programs where few output tiles (MatmulSplitK).
      Dev work(size_t(std::max<int64_t>(1, tk::Linear::forwardWorkspaceElements(n, s.in, s.out)))),
          yS(size_t(n) * s.out);
      tk::Linear::forward(gpu, x.ptr(), w.ptr(), b.ptr(), yS.ptr(), n, s.in, s.out, s.relu, work.ptr(),
                          int64_t(work.n));
      expectClose(label(s.name, s.relu ? "forward relu(xW^T+b) split-K" : "forward xW^T+b split-K", n), yS, yRef);

      Dev dx(size_t(n) * s.in), dxRef(size_t(n) * s.in), dw(size_t(s.out) * s.in), dwRef(size_t(s.out) * s.in);
      Dev db(outs), dbRef(outs);
      tk::Linear::backwardData(gpu, dy.ptr(), w.ptr(), dx.ptr(), n, s.in, s.out);
      tk::Linear::backwardWeight(gpu, dy.ptr(), x.ptr(), dw.ptr(), n, s.in, s.out);
      tk::Linear::backwardBias(gpu, dy.ptr(), db.ptr(), n, s.out);
      dnn().linearBackwardData(dy.ptr(), w.ptr(), dxRef.ptr(), n, s.in, s.out);
      dnn().linearBackwardWeight(dy.ptr(), x.ptr(), dwRef.ptr(), n, s.in, s.out);
      dnn().linearBackwardBias(dy.ptr(), dbRef.ptr(), n, s.out);
      expectClose(label(s.name, "backward dx", n), dx, dxRef);
      expectClose(label(s.name, "backward dweight", n), dw, dwRef);
      expectClose(label(s.name, "backward dbias", n), db, dbRef);

      // The weight gradient with the batch split over programs, and the three products in TF32
      // (MnistCnn's fc1 with --precision tf32), against the same exact results.
      Dev workW(size_t(std::max<int64_t>(1, tk::Linear::backwardWeightWorkspaceElements(n, s.in, s.out))));
      Dev dwS(size_t(s.out) * s.in);
      tk::Linear::backwardWeight(gpu, dy.ptr(), x.ptr(), dwS.ptr(), n, s.in, s.out, workW.ptr(), int64_t(workW.n));
      expectClose(label(s.name, "backward dweight split-K", n), dwS, dwRef);
      Dev yT(size_t(n) * s.out), dxT(size_t(n) * s.in), dwT(size_t(s.out) * s.in);
      tk::Linear::forward(gpu, x.ptr(), w.ptr(), b.ptr(), yT.ptr(), n, s.in, s.out, s.relu, work.ptr(), int64_t(work.n),
                          nullptr, /*tf32=*/true);
      tk::Linear::backwardData(gpu, dy.ptr(), w.ptr(), dxT.ptr(), n, s.in, s.out, nullptr, /*tf32=*/true);
      tk::Linear::backwardWeight(gpu, dy.ptr(), x.ptr(), dwT.ptr(), n, s.in, s.out, workW.ptr(), int64_t(workW.n),
                                 nullptr, /*tf32=*/true);
      expectTf32Close(label(s.name, "forward tf32 split-K", n), yT, yRef);
      expectTf32Close(label(s.name, "backward dx tf32", n), dxT, dxRef);
      expectTf32Close(label(s.name, "backward dweight tf32 split-K", n), dwT, dwRef);
    }
}

// The library matmul against cublasGemmEx on the same inputs, ragged and aligned shapes:
// f16/bf16 (tensor cores on both sides, exact products, f32 sums in different orders),
// exact f32 (FMA / pedantic cuBLAS) and TF32 (both round the inputs to tf32; cuBLAS may
// round differently, so 1e-3 as the issue states for TF32).
TEST_F(CudnnReference, MatmulAgainstCublas) {
  struct Shape {
    int m, n, k;
  };
  uint64_t seed = 700;
  for (Shape s : {Shape{1000, 999, 77}, Shape{256, 384, 512}, Shape{1, 300, 40}, Shape{130, 70, 8}})
    for (int type = 0; type < 4; ++type) { // f32, tf32, f16, bf16
      const size_t an = size_t(s.m) * s.k, bn = size_t(s.k) * s.n, cn = size_t(s.m) * s.n;
      std::vector<float> a = Dev::randomHost(an, seed++), b = Dev::randomHost(bn, seed++);
      DeviceBuffer da, db;
      if (type >= 2) { // the same 16-bit values for both
        auto bits = [&](const std::vector<float> &v) {
          std::vector<uint16_t> out;
          for (float x : v) out.push_back(type == 2 ? tile::halfBits(x) : tile::bf16Bits(x));
          return DeviceBuffer::fromHost(out);
        };
        da = bits(a), db = bits(b);
      } else {
        da = DeviceBuffer::fromHost(a), db = DeviceBuffer::fromHost(b);
      }
      Dev c(cn), cRef(cn);
      const char *names[] = {"f32", "tf32", "f16", "bf16"};
      auto run = [&](auto kernel, bool tf32) {
        kernel(gpu,
               {.a = da.ptr(),
                .b = db.ptr(),
                .c = c.ptr(),
                .m = s.m,
                .n = s.n,
                .k = s.k,
                .strideAm = s.k,
                .strideAk = 1,
                .strideBk = s.n,
                .strideBn = 1,
                .strideCm = s.n,
                .strideCn = 1,
                .tf32 = tf32},
               nullptr, nullptr);
      };
      if (type <= 1) run(&tk::MatmulF32::launch, type == 1);
      else if (type == 2) run(&tk::MatmulF16::launch, false);
      else run(&tk::MatmulBF16::launch, false);
      const cudaDataType inputs = type <= 1 ? CUDA_R_32F : type == 2 ? CUDA_R_16F : CUDA_R_16BF;
      dnn().matmul(da.ptr(), db.ptr(), cRef.ptr(), s.m, s.n, s.k, inputs,
                   type == 1 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F);
      std::vector<float> got = c.get(), want = cRef.get();
      double e = relError(got, want);
      std::string what = std::string("matmul ") + names[type] + " " + std::to_string(s.m) + "x" + std::to_string(s.n) +
                         "x" + std::to_string(s.k) + " vs cublasGemmEx";
      std::printf("cudnn-check %-44s rel err %.2e\n", what.c_str(), e);
      EXPECT_LE(e, type == 1 ? 1e-3 : kTol) << what;
    }
}

TEST_F(CudnnReference, SgdUpdate) {
  const size_t n = 421642; // the model's parameter count
  Dev p = Dev::random(n, 600), g = Dev::random(n, 601);
  std::vector<float> start = p.get();
  DeviceBuffer pRef = DeviceBuffer::fromHost(start);
  tk::SgdUpdate::launch(gpu, p.ptr(), g.ptr(), 0.01f, int64_t(n));
  dnn().axpy(g.ptr(), pRef.ptr(), int64_t(n), -0.01f);
  expectClose("sgd p - lr*g", p.get(), pRef.toHost<float>(n));
}

// One whole training step of MnistCnn (batch 64, MNIST-like images) against the same network
// wired from cuDNN + cuBLAS: the loss, the logits, every parameter gradient and every updated
// parameter.
TEST_F(CudnnReference, WholeTrainingStep) {
  const int B = 64;
  const float lr = 0.01f;
  tile::models::MnistCnn model(gpu, B);
  model.init(11);
  CudnnMnist ref(dnn(), B);
  ref.setParameters(model.parameters());
  std::vector<float> images;
  std::vector<int32_t> labels;
  tile::models::testing::syntheticBatch(12, B, images, labels);

  model.setBatch(images.data(), labels.data(), B);
  model.forward();
  model.backward();
  std::vector<float> logits = model.logits();
  float loss = model.loss();
  model.sgdStep(lr);
  float lossRef = ref.trainStep(images, labels, lr);

  expectClose("step loss", std::vector<float>{loss}, std::vector<float>{lossRef});
  expectClose("step logits", logits, ref.logits());
  std::vector<tile::models::NamedTensor> g = model.gradients(), gRef = ref.gradients();
  std::vector<tile::models::NamedTensor> p = model.parameters(), pRef = ref.parameters();
  ASSERT_EQ(g.size(), gRef.size());
  // The conv biases' gradients are zero up to rounding (a batchnorm follows each convolution):
  // held to the magnitude of the conv output gradient they sum.
  const std::vector<float> dconv1 = ref.activationGradient("conv1"), dconv2 = ref.activationGradient("conv2");
  for (size_t i = 0; i < g.size(); ++i) {
    if (gRef[i].name == "grad conv1.bias")
      expectCancelledSum("step " + gRef[i].name, g[i].data, gRef[i].data, dconv1, 32, 28 * 28);
    else if (gRef[i].name == "grad conv2.bias")
      expectCancelledSum("step " + gRef[i].name, g[i].data, gRef[i].data, dconv2, 64, 14 * 14);
    else expectClose("step " + gRef[i].name, g[i].data, gRef[i].data);
  }
  for (size_t i = 0; i < p.size(); ++i) expectClose("step updated " + pRef[i].name, p[i].data, pRef[i].data);
}

} // namespace
