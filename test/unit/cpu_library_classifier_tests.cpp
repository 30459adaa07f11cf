// The MNIST CNN's classifier head through its launchers on the CPU executor (the rest of
// the model's kernels: cpu_library_model_tests.cpp): cross-entropy, linear, and the fused
// linear + cross-entropy, each against a float64 reference written plainly here, on fresh
// random inputs (seed printed on failure, TILE_TEST_SEED replays), outputs poisoned with NaN
// first. Bounds: 1e-5 of the magnitudes of each sum's terms (closeToMagnitude), a gradient's
// terms counted at the gradient's magnitude, so that cancellation (a dominant label's loss,
// p - 1, a bias against x·Wᵀ) cannot make a correct result fail.
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

class CpuClassifierKernels : public Seeded {
protected:
  tk::DslLauncher cpu{Executor::CPU};
};

// ---------------------------------------------------------------------------------------
// log-softmax + NLL, forward and backward in one kernel

TEST_F(CpuClassifierKernels, CrossEntropy) {
  for (auto [batch, classes] :
       std::vector<std::pair<int64_t, int64_t>>{{3, 10}, {64, 10}, {100, 10}, {1, 1}, {7, 37}}) {
    SCOPED_TRACE(std::to_string(batch) + "x" + std::to_string(classes));
    std::vector<float> logits = randomFloats(static_cast<size_t>(batch * classes), -10.f, 10.f);
    std::vector<int32_t> labels(static_cast<size_t>(batch));
    for (int32_t &l : labels) l = int32_t(uniformInt(0, classes - 1));
    std::vector<float> loss = poisoned(static_cast<size_t>(batch)), mean = poisoned(1),
                       dlogits = poisoned(static_cast<size_t>(batch * classes));
    tk::CrossEntropy::launch(cpu, logits.data(), labels.data(), loss.data(), mean.data(), dlogits.data(), batch,
                             classes);
    // Magnitudes: the loss is lse - z[label] (small where the label dominates), a gradient
    // p - 1 at the label (small where p ~ 1); bounded by the sizes of those terms.
    std::vector<double> refLoss, refD, magLoss, magD;
    double refMean = 0, magMean = 0;
    for (int64_t b = 0; b < batch; ++b) {
      const float *row = logits.data() + b * classes;
      double m = *std::max_element(row, row + classes), s = 0;
      for (int64_t j = 0; j < classes; ++j) s += std::exp(row[j] - m);
      double lse = m + std::log(s);
      refLoss.push_back(lse - row[labels[b]]);
      magLoss.push_back(std::fabs(lse) + std::fabs(row[labels[b]]));
      refMean += refLoss.back() / double(batch);
      magMean += magLoss.back() / double(batch);
      for (int64_t j = 0; j < classes; ++j) {
        refD.push_back((std::exp(row[j] - lse) - (j == labels[b])) / double(batch));
        magD.push_back((std::exp(row[j] - lse) + (j == labels[b])) / double(batch));
      }
    }
    EXPECT_TRUE(closeToMagnitude(loss, refLoss, magLoss, kTol, "loss"));
    EXPECT_TRUE(closeToMagnitude(mean, {refMean}, {magMean}, kTol, "mean loss"));
    EXPECT_TRUE(closeToMagnitude(dlogits, refD, magD, kTol, "dlogits"));
  }
}

// ---------------------------------------------------------------------------------------
// Linear: y = x·Wᵀ + b (+ relu), dx = dy·W, dW = dyᵀ·x, db = Σ dy

TEST_F(CpuClassifierKernels, Linear) {
  struct Case {
    int64_t batch, in, out;
  };
  for (Case c : {Case{3, 3136, 128}, Case{3, 128, 10}, Case{5, 37, 19}, Case{64, 128, 10}, Case{1, 1, 1}}) {
    for (bool relu : {false, true}) {
      SCOPED_TRACE(std::to_string(c.batch) + " x " + std::to_string(c.in) + " -> " + std::to_string(c.out) +
                   (relu ? " relu" : ""));
      std::vector<float> x = randomFloats(static_cast<size_t>(c.batch * c.in)),
                         w = randomFloats(static_cast<size_t>(c.out * c.in), -0.1f, 0.1f);
      std::vector<float> b = randomFloats(static_cast<size_t>(c.out)),
                         dy = randomFloats(static_cast<size_t>(c.batch * c.out));
      std::vector<float> y = poisoned(static_cast<size_t>(c.batch * c.out)),
                         dx = poisoned(static_cast<size_t>(c.batch * c.in));
      std::vector<float> dw = poisoned(static_cast<size_t>(c.out * c.in)), db = poisoned(static_cast<size_t>(c.out));
      tk::Linear::forward(cpu, x.data(), w.data(), b.data(), y.data(), c.batch, c.in, c.out, relu);
      tk::Linear::backwardData(cpu, dy.data(), w.data(), dx.data(), c.batch, c.in, c.out);
      tk::Linear::backwardWeight(cpu, dy.data(), x.data(), dw.data(), c.batch, c.in, c.out);
      tk::Linear::backwardBias(cpu, dy.data(), db.data(), c.batch, c.out);
      // Evaluated on the inputs, and on their absolute values: the magnitudes of the sums.
      struct Ref {
        std::vector<double> y, dx, dw, db;
      };
      auto reference = [&](const std::vector<float> &x, const std::vector<float> &w, const std::vector<float> &b,
                           const std::vector<float> &dy, bool relu) {
        Ref r{{},
              std::vector<double>(x.size(), 0.0),
              std::vector<double>(w.size(), 0.0),
              std::vector<double>(b.size(), 0.0)};
        for (int64_t i = 0; i < c.batch; ++i)
          for (int64_t o = 0; o < c.out; ++o) {
            double s = b[o];
            for (int64_t k = 0; k < c.in; ++k) s += double(x[i * c.in + k]) * w[o * c.in + k];
            r.y.push_back(relu ? std::max(s, 0.0) : s);
            double g = dy[i * c.out + o];
            r.db[o] += g;
            for (int64_t k = 0; k < c.in; ++k) {
              r.dx[i * c.in + k] += g * w[o * c.in + k];
              r.dw[o * c.in + k] += g * x[i * c.in + k];
            }
          }
        return r;
      };
      const Ref ref = reference(x, w, b, dy, relu);
      const Ref mag = reference(absolute(x), absolute(w), absolute(b), absolute(dy), false);
      EXPECT_TRUE(closeToMagnitude(y, ref.y, mag.y, kTol, "linear y"));
      EXPECT_TRUE(closeToMagnitude(dx, ref.dx, mag.dx, kTol, "linear dx"));
      EXPECT_TRUE(closeToMagnitude(dw, ref.dw, mag.dw, kTol, "linear dw"));
      EXPECT_TRUE(closeToMagnitude(db, ref.db, mag.db, kTol, "linear db"));
    }
  }
}

// ---------------------------------------------------------------------------------------
// The fused classifier head: linear + cross-entropy, and the backward of both and of the
// relu before, against the float64 chain of the separate layers.

TEST_F(CpuClassifierKernels, LinearCrossEntropy) {
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
      std::vector<float> logits = poisoned(B * C), dlogits = poisoned(B * C), dx = poisoned(B * K),
                         dxT = poisoned(B * K), dw = poisoned(C * K), db = poisoned(C), dxSum = poisoned(K),
                         mean = poisoned(1),
                         work = poisoned(size_t(tk::LinearCrossEntropy::workspaceElements(c.batch, c.in, c.classes)));
      tk::LinearCrossEntropy::launch(cpu, x.data(), w.data(), b.data(), labels.data(), logits.data(), dlogits.data(),
                                     dx.data(), dw.data(), db.data(), dxSum.data(), mean.data(), c.batch, c.in,
                                     c.classes, relu, work.data(), int64_t(work.size()), dxT.data());
      // Beside each reference, its magnitude (mag*): the sizes of the terms of its sums, a
      // gradient's terms counted at the magnitude of the gradient (p + [label]) / B.
      std::vector<double> refZ(B * C), refDz(B * C), refDx(B * K, 0.0), refDw(C * K, 0.0), refDb(C, 0.0),
          refDxSum(K, 0.0);
      std::vector<double> magZ(B * C), magDz(B * C), magDx(B * K, 0.0), magDw(C * K, 0.0), magDb(C, 0.0),
          magDxSum(K, 0.0);
      double refMean = 0, magMean = 0;
      for (size_t i = 0; i < B; ++i) {
        double m = -1e300;
        for (size_t o = 0; o < C; ++o) {
          double s = b[o], mag = std::fabs(b[o]);
          for (size_t k = 0; k < K; ++k) {
            s += double(x[i * K + k]) * w[o * K + k];
            mag += std::fabs(double(x[i * K + k]) * w[o * K + k]);
          }
          refZ[i * C + o] = s;
          magZ[i * C + o] = mag;
          m = std::max(m, s);
        }
        double se = 0;
        for (size_t o = 0; o < C; ++o) se += std::exp(refZ[i * C + o] - m);
        const double lse = m + std::log(se);
        const size_t label = i * C + size_t(labels[i]);
        refMean += (lse - refZ[label]) / double(B);
        magMean += (std::fabs(lse) + std::fabs(refZ[label]) + magZ[label]) / double(B);
        for (size_t o = 0; o < C; ++o) {
          const double p = std::exp(refZ[i * C + o] - lse), hot = int32_t(o) == labels[i];
          const double g = (p - hot) / double(B), gm = (p + hot) / double(B);
          refDz[i * C + o] = g;
          magDz[i * C + o] = gm;
          refDb[o] += g;
          magDb[o] += gm;
          for (size_t k = 0; k < K; ++k) {
            refDx[i * K + k] += g * w[o * K + k];
            magDx[i * K + k] += gm * std::fabs(w[o * K + k]);
            refDw[o * K + k] += g * x[i * K + k];
            magDw[o * K + k] += gm * std::fabs(x[i * K + k]);
          }
        }
        for (size_t k = 0; k < K; ++k) {
          if (relu && !(x[i * K + k] > 0)) refDx[i * K + k] = 0, magDx[i * K + k] = 0;
          refDxSum[k] += refDx[i * K + k];
          magDxSum[k] += magDx[i * K + k];
        }
      }
      EXPECT_TRUE(closeToMagnitude(logits, refZ, magZ, kTol, "logits"));
      EXPECT_TRUE(closeToMagnitude(dlogits, refDz, magDz, kTol, "dlogits"));
      EXPECT_TRUE(closeToMagnitude(mean, {refMean}, {magMean}, kTol, "mean loss"));
      EXPECT_TRUE(closeToMagnitude(dx, refDx, magDx, kTol, "dx"));
      EXPECT_TRUE(closeToMagnitude(dw, refDw, magDw, kTol, "dw"));
      EXPECT_TRUE(closeToMagnitude(db, refDb, magDb, kTol, "db"));
      EXPECT_TRUE(closeToMagnitude(dxSum, refDxSum, magDxSum, kTol, "dx sum"));
      std::vector<double> refDxT(B * K), magDxT(B * K);
      for (size_t i = 0; i < B; ++i)
        for (size_t k = 0; k < K; ++k) refDxT[k * B + i] = refDx[i * K + k], magDxT[k * B + i] = magDx[i * K + k];
      EXPECT_TRUE(closeToMagnitude(dxT, refDxT, magDxT, kTol, "dx transposed"));
    }
  }
}

} // namespace
