// The MNIST CNN (docs/models.md) written plainly in float64 (forward and backward), and
// the whole-network gradient check of tile::models::MnistCnn against it. Shared by the CPU
// executor's tests (cpu_mnist_model_tests.cpp) and the GPU's (models_gpu_mnist_tests.cpp).
#pragma once

#include "tile/models/Idx.h"
#include "tile/models/Init.h"
#include "tile/models/MnistCnn.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace tile::models::testing {

// ---------------------------------------------------------------------------------------
// The network in float64, forward and backward, written plainly.

using Vec = std::vector<double>;

struct Params64 {
  std::map<std::string, Vec> p;
  Vec &operator[](const std::string &k) { return p.at(k); }
};

struct Net64 {
  int B = 0;
  // Saved forward state.
  Vec x, c1, xh1, r1, p1, c2, xh2, r2, p2, h3, logits, prob;
  std::vector<int> a1, a2; // argmax input index per pooled output
  Vec rstd1, rstd2;
  std::vector<int> labels;
  double loss = 0;

  static void conv(const Vec &in, int B, int cin, int H, int W, const Vec &w, const Vec &b, int cout, Vec &out) {
    out.assign(size_t(B) * cout * H * W, 0.0);
    for (int n = 0; n < B; ++n)
      for (int co = 0; co < cout; ++co)
        for (int i = 0; i < H; ++i)
          for (int j = 0; j < W; ++j) {
            double s = b[co];
            for (int ci = 0; ci < cin; ++ci)
              for (int kh = 0; kh < 3; ++kh)
                for (int kw = 0; kw < 3; ++kw) {
                  int ii = i + kh - 1, jj = j + kw - 1;
                  if (ii < 0 || ii >= H || jj < 0 || jj >= W) continue;
                  s += in[((size_t(n) * cin + ci) * H + ii) * W + jj] * w[((size_t(co) * cin + ci) * 3 + kh) * 3 + kw];
                }
            out[((size_t(n) * cout + co) * H + i) * W + j] = s;
          }
  }
  static void convBackward(const Vec &in, const Vec &dout, int B, int cin, int H, int W, const Vec &w, int cout,
                           Vec &dw, Vec &db, Vec *din) {
    dw.assign(size_t(cout) * cin * 9, 0.0);
    db.assign(size_t(cout), 0.0);
    if (din) din->assign(size_t(B) * cin * H * W, 0.0);
    for (int n = 0; n < B; ++n)
      for (int co = 0; co < cout; ++co)
        for (int i = 0; i < H; ++i)
          for (int j = 0; j < W; ++j) {
            double g = dout[((size_t(n) * cout + co) * H + i) * W + j];
            db[co] += g;
            for (int ci = 0; ci < cin; ++ci)
              for (int kh = 0; kh < 3; ++kh)
                for (int kw = 0; kw < 3; ++kw) {
                  int ii = i + kh - 1, jj = j + kw - 1;
                  if (ii < 0 || ii >= H || jj < 0 || jj >= W) continue;
                  size_t xi = ((size_t(n) * cin + ci) * H + ii) * W + jj,
                         wi = ((size_t(co) * cin + ci) * 3 + kh) * 3 + kw;
                  dw[wi] += g * in[xi];
                  if (din) (*din)[xi] += g * w[wi];
                }
          }
  }
  // Batchnorm (batch statistics, biased variance, eps 1e-5) + relu.
  static void bnRelu(const Vec &in, int B, int C, int HW, const Vec &gamma, const Vec &beta, Vec &xh, Vec &rstd,
                     Vec &out) {
    xh.assign(in.size(), 0.0);
    out.assign(in.size(), 0.0);
    rstd.assign(size_t(C), 0.0);
    const double m = double(B) * HW;
    for (int c = 0; c < C; ++c) {
      double mu = 0, var = 0;
      for (int n = 0; n < B; ++n)
        for (int p = 0; p < HW; ++p) mu += in[(size_t(n) * C + c) * HW + p];
      mu /= m;
      for (int n = 0; n < B; ++n)
        for (int p = 0; p < HW; ++p) {
          double d = in[(size_t(n) * C + c) * HW + p] - mu;
          var += d * d;
        }
      var /= m;
      rstd[c] = 1.0 / std::sqrt(var + 1e-5);
      for (int n = 0; n < B; ++n)
        for (int p = 0; p < HW; ++p) {
          size_t i = (size_t(n) * C + c) * HW + p;
          xh[i] = (in[i] - mu) * rstd[c];
          out[i] = std::max(0.0, xh[i] * gamma[c] + beta[c]);
        }
    }
  }
  // dout: gradient of relu(bn(in)); returns din, dgamma, dbeta.
  static void bnReluBackward(const Vec &xh, const Vec &out, const Vec &dout, int B, int C, int HW, const Vec &gamma,
                             const Vec &rstd, Vec &din, Vec &dgamma, Vec &dbeta) {
    din.assign(xh.size(), 0.0);
    dgamma.assign(size_t(C), 0.0);
    dbeta.assign(size_t(C), 0.0);
    const double m = double(B) * HW;
    for (int c = 0; c < C; ++c) {
      double sg = 0, sgx = 0;
      for (int n = 0; n < B; ++n)
        for (int p = 0; p < HW; ++p) {
          size_t i = (size_t(n) * C + c) * HW + p;
          double g = out[i] > 0 ? dout[i] : 0.0;
          sg += g;
          sgx += g * xh[i];
        }
      dbeta[c] = sg;
      dgamma[c] = sgx;
      for (int n = 0; n < B; ++n)
        for (int p = 0; p < HW; ++p) {
          size_t i = (size_t(n) * C + c) * HW + p;
          double g = out[i] > 0 ? dout[i] : 0.0;
          din[i] = gamma[c] * rstd[c] / m * (m * g - sg - xh[i] * sgx);
        }
    }
  }
  static void pool(const Vec &in, int planes, int H, int W, Vec &out, std::vector<int> &arg) {
    int oh = H / 2, ow = W / 2;
    out.assign(size_t(planes) * oh * ow, 0.0);
    arg.assign(out.size(), 0);
    for (int pl = 0; pl < planes; ++pl)
      for (int i = 0; i < oh; ++i)
        for (int j = 0; j < ow; ++j) {
          int best = -1;
          for (int q = 0; q < 4; ++q) {
            int idx = (pl * H + 2 * i + q / 2) * W + 2 * j + q % 2;
            if (best < 0 || in[idx] > in[best]) best = idx;
          }
          out[(size_t(pl) * oh + i) * ow + j] = in[best];
          arg[(size_t(pl) * oh + i) * ow + j] = best;
        }
  }

  double forward(Params64 &P, const Vec &input, const std::vector<int> &lab) {
    x = input;
    labels = lab;
    conv(x, B, 1, 28, 28, P["conv1.weight"], P["conv1.bias"], 32, c1);
    bnRelu(c1, B, 32, 784, P["bn1.weight"], P["bn1.bias"], xh1, rstd1, r1);
    pool(r1, B * 32, 28, 28, p1, a1);
    conv(p1, B, 32, 14, 14, P["conv2.weight"], P["conv2.bias"], 64, c2);
    bnRelu(c2, B, 64, 196, P["bn2.weight"], P["bn2.bias"], xh2, rstd2, r2);
    pool(r2, B * 64, 14, 14, p2, a2);
    const Vec &w3 = P["fc1.weight"], &b3 = P["fc1.bias"], &w4 = P["fc2.weight"], &b4 = P["fc2.bias"];
    h3.assign(size_t(B) * 128, 0.0);
    for (int n = 0; n < B; ++n)
      for (int o = 0; o < 128; ++o) {
        double s = b3[o];
        for (int k = 0; k < 3136; ++k) s += p2[size_t(n) * 3136 + k] * w3[size_t(o) * 3136 + k];
        h3[size_t(n) * 128 + o] = std::max(s, 0.0);
      }
    logits.assign(size_t(B) * 10, 0.0);
    prob.assign(size_t(B) * 10, 0.0);
    loss = 0;
    for (int n = 0; n < B; ++n) {
      for (int o = 0; o < 10; ++o) {
        double s = b4[o];
        for (int k = 0; k < 128; ++k) s += h3[size_t(n) * 128 + k] * w4[size_t(o) * 128 + k];
        logits[size_t(n) * 10 + o] = s;
      }
      double m = *std::max_element(logits.begin() + n * 10, logits.begin() + n * 10 + 10), z = 0;
      for (int o = 0; o < 10; ++o) z += std::exp(logits[size_t(n) * 10 + o] - m);
      for (int o = 0; o < 10; ++o) prob[size_t(n) * 10 + o] = std::exp(logits[size_t(n) * 10 + o] - m) / z;
      loss += (m + std::log(z) - logits[size_t(n) * 10 + labels[n]]) / B;
    }
    return loss;
  }

  std::map<std::string, Vec> backward(Params64 &P) {
    std::map<std::string, Vec> g;
    Vec dl(size_t(B) * 10);
    for (int n = 0; n < B; ++n)
      for (int o = 0; o < 10; ++o) dl[size_t(n) * 10 + o] = (prob[size_t(n) * 10 + o] - (o == labels[n])) / B;
    const Vec &w3 = P["fc1.weight"], &w4 = P["fc2.weight"];
    Vec dw4(1280, 0.0), db4(10, 0.0), dh3(size_t(B) * 128, 0.0);
    for (int n = 0; n < B; ++n)
      for (int o = 0; o < 10; ++o) {
        double d = dl[size_t(n) * 10 + o];
        db4[o] += d;
        for (int k = 0; k < 128; ++k) {
          dw4[size_t(o) * 128 + k] += d * h3[size_t(n) * 128 + k];
          dh3[size_t(n) * 128 + k] += d * w4[size_t(o) * 128 + k];
        }
      }
    for (size_t i = 0; i < dh3.size(); ++i)
      if (!(h3[i] > 0)) dh3[i] = 0;
    Vec dw3(size_t(128) * 3136, 0.0), db3(128, 0.0), dp2(size_t(B) * 3136, 0.0);
    for (int n = 0; n < B; ++n)
      for (int o = 0; o < 128; ++o) {
        double d = dh3[size_t(n) * 128 + o];
        db3[o] += d;
        for (int k = 0; k < 3136; ++k) {
          dw3[size_t(o) * 3136 + k] += d * p2[size_t(n) * 3136 + k];
          dp2[size_t(n) * 3136 + k] += d * w3[size_t(o) * 3136 + k];
        }
      }
    Vec dr2(r2.size(), 0.0);
    for (size_t i = 0; i < dp2.size(); ++i) dr2[size_t(a2[i])] += dp2[i];
    Vec dc2, dg2, dbe2, dw2, db2, dp1;
    bnReluBackward(xh2, r2, dr2, B, 64, 196, P["bn2.weight"], rstd2, dc2, dg2, dbe2);
    convBackward(p1, dc2, B, 32, 14, 14, P["conv2.weight"], 64, dw2, db2, &dp1);
    Vec dr1(r1.size(), 0.0);
    for (size_t i = 0; i < dp1.size(); ++i) dr1[size_t(a1[i])] += dp1[i];
    Vec dc1, dg1, dbe1, dw1, db1;
    bnReluBackward(xh1, r1, dr1, B, 32, 784, P["bn1.weight"], rstd1, dc1, dg1, dbe1);
    convBackward(x, dc1, B, 1, 28, 28, P["conv1.weight"], 32, dw1, db1, nullptr);
    // The conv biases' gradients are 0 in exact arithmetic (batchnorm removes the mean):
    // keep Σ|dc| per channel as the scale their float rounding is measured against.
    Vec s1(32, 0.0), s2(64, 0.0);
    for (size_t i = 0; i < dc1.size(); ++i) s1[(i / 784) % 32] += std::fabs(dc1[i]);
    for (size_t i = 0; i < dc2.size(); ++i) s2[(i / 196) % 64] += std::fabs(dc2[i]);
    g["conv1.weight"] = dw1, g["conv1.bias"] = db1, g["bn1.weight"] = dg1, g["bn1.bias"] = dbe1;
    g["conv2.weight"] = dw2, g["conv2.bias"] = db2, g["bn2.weight"] = dg2, g["bn2.bias"] = dbe2;
    g["fc1.weight"] = dw3, g["fc1.bias"] = db3, g["fc2.weight"] = dw4, g["fc2.bias"] = db4;
    g["scale conv1.bias"] = s1, g["scale conv2.bias"] = s2;
    return g;
  }
};

inline double relError(const std::vector<float> &got, const Vec &ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    double d = double(got[i]) - ref[i];
    if (!std::isfinite(double(got[i]))) return INFINITY;
    num += d * d, den += ref[i] * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

/// Random normalised "images" with values like MNIST's (mostly background, some strokes).
inline void syntheticBatch(uint64_t seed, int64_t n, std::vector<float> &images, std::vector<int32_t> &labels) {
  Rng rng(seed);
  std::vector<uint8_t> px(size_t(n * kImagePixels));
  for (uint8_t &p : px) p = rng.uniform() < 0.2f ? uint8_t(rng.below(256)) : 0;
  images.resize(px.size());
  normalize(px, images);
  labels.resize(size_t(n));
  for (int32_t &l : labels) l = int32_t(rng.below(10));
}

// Every parameter gradient of the whole network (batch B) against float64; with
// `differences`, the float64 backward is itself checked by central differences.
inline void checkGradients(MnistCnn &model, int B, const std::vector<float> &img, const std::vector<int32_t> &lab,
                           bool differences) {
  model.setBatch(img.data(), lab.data(), B);
  model.forward();
  model.backward();
  const float loss = model.loss();

  Params64 P;
  for (const NamedTensor &t : model.parameters()) P.p[t.name] = Vec(t.data.begin(), t.data.end());
  Net64 net;
  net.B = B;
  const double refLoss = net.forward(P, Vec(img.begin(), img.end()), std::vector<int>(lab.begin(), lab.end()));
  std::map<std::string, Vec> ref = net.backward(P);
  EXPECT_NEAR(loss, refLoss, 1e-5 * std::fabs(refLoss)) << "loss";
  std::printf("    loss %.7f (float64 %.7f)\n", loss, refLoss);

  // The float64 backward itself, by central differences of the float64 forward at a few
  // coordinates of each parameter.
  for (auto &[name, vals] : P.p) {
    if (!differences) break;
    Vec &v = P[name];
    for (size_t k : {size_t(0), v.size() / 2, v.size() - 1}) {
      const double h = 1e-6, keep = v[k];
      v[k] = keep + h;
      double up = net.forward(P, net.x, net.labels);
      v[k] = keep - h;
      double down = net.forward(P, net.x, net.labels);
      v[k] = keep;
      double fd = (up - down) / (2 * h), an = ref[name][k];
      EXPECT_NEAR(an, fd, 1e-6 + 1e-4 * std::fabs(fd)) << name << "[" << k << "]: float64 backward vs differences";
    }
  }

  constexpr double kTol = 1e-4; // ||g - ref|| / ||ref|| per parameter
  for (const NamedTensor &g : model.gradients()) {
    const std::string name = g.name.substr(5); // "grad conv1.weight"
    SCOPED_TRACE(name);
    if (name == "conv1.bias" || name == "conv2.bias") {
      // Exactly 0 mathematically: |g| small against the magnitude of what it sums.
      const Vec &scale = ref["scale " + name];
      double worst = 0;
      for (size_t c = 0; c < g.data.size(); ++c) {
        EXPECT_LE(std::fabs(g.data[c]), 1e-5 * scale[c] + 1e-30) << "channel " << c;
        worst = std::max(worst, std::fabs(g.data[c]) / scale[c]);
      }
      std::printf("    %-14s |g| / sum|dconv| <= %.2e (float64: %.1e; exact: 0)\n", name.c_str(), worst,
                  *std::max_element(ref[name].begin(), ref[name].end(),
                                    [](double a, double b) { return std::fabs(a) < std::fabs(b); }));
      continue;
    }
    double e = relError(g.data, ref.at(name));
    std::printf("    %-14s relative error %.2e (%zu elements)\n", name.c_str(), e, g.data.size());
    EXPECT_LE(e, kTol);
  }
}

} // namespace tile::models::testing
