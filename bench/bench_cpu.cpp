// The CPU executor against a plain C++ loop doing the same work on one core (this file
// is built with -O2), median of repeats after a warm-up launch (which JIT-compiles).
// The CPU executor's target: every library kernel within 3x of the loop.
//   bench_cpu [repeats]        (TILE_CPU_THREADS=1, the default, for one core)
#include "tile/kernels/Elementwise.h"
#include "tile/kernels/LayerNorm.h"
#include "tile/kernels/Matmul.h"
#include "tile/kernels/Softmax.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

namespace tk = tile::kernels;

namespace {

double medianMs(int repeats, const std::function<void()> &fn) {
  fn(); // warm-up: JIT compile, page faults
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

tile::LaunchOptions cpu(int numWarps) {
  tile::LaunchOptions o;
  o.numWarps = numWarps;
  o.executor = tile::Executor::CPU;
  return o;
}

// The reference loops: what a C++ programmer would write, one core.
__attribute__((noinline)) void addLoop(const float *x, const float *y, float *z, int64_t n) {
  for (int64_t i = 0; i < n; ++i) z[i] = x[i] + y[i];
}

__attribute__((noinline)) void softmaxLoop(const float *in, float *out, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float *x = in + r * cols;
    float *y = out + r * cols;
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = std::max(m, x[c]);
    float s = 0;
    for (int64_t c = 0; c < cols; ++c) s += (y[c] = std::exp(x[c] - m));
    for (int64_t c = 0; c < cols; ++c) y[c] /= s;
  }
}

__attribute__((noinline)) void layerNormLoop(const float *x, float *y, const float *w, const float *b, float *mean,
                                             float *rstd, int64_t rows, int64_t cols, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = x + r * cols;
    float *yr = y + r * cols;
    float s = 0;
    for (int64_t c = 0; c < cols; ++c) s += xr[c];
    float mu = s / cols, v = 0;
    for (int64_t c = 0; c < cols; ++c) v += (xr[c] - mu) * (xr[c] - mu);
    float rs = 1.0f / std::sqrt(v / cols + eps);
    mean[r] = mu;
    rstd[r] = rs;
    for (int64_t c = 0; c < cols; ++c) yr[c] = (xr[c] - mu) * rs * w[c] + b[c];
  }
}

void row(const char *name, const char *size, double bytes, double tileMs, double loopMs) {
  std::printf("%-12s %-12s %10.3f %10.3f %8.2fx %10.2f %10.2f\n", name, size, tileMs, loopMs, tileMs / loopMs,
              bytes / tileMs / 1e6, bytes / loopMs / 1e6);
}

} // namespace

int main(int argc, char **argv) {
  int repeats = argc > 1 ? std::atoi(argv[1]) : 11;
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> dist(-4.f, 4.f);
  auto randomVec = [&](size_t n) {
    std::vector<float> v(n);
    for (float &f : v) f = dist(gen);
    return v;
  };
  std::printf("CPU executor vs a plain -O2 C++ loop, one core, median of %d (ms; GB/s = bytes moved / time)\n",
              repeats);
  std::printf("%-12s %-12s %10s %10s %9s %10s %10s\n", "kernel", "size", "tile ms", "loop ms", "ratio", "tile GB/s",
              "loop GB/s");

  {
    const int64_t n = int64_t(1) << 24;
    auto x = randomVec(n), y = randomVec(n);
    std::vector<float> z(n), zr(n);
    constexpr int block = tk::ElementwiseConfig::block;
    double t = medianMs(repeats, [&] {
      tk::vectorAddKernel().launch({tile::cdiv(n, block)}, cpu(tk::ElementwiseConfig::numWarps), x.data(), y.data(),
                                   z.data(), static_cast<int32_t>(n), block);
    });
    double l = medianMs(repeats, [&] { addLoop(x.data(), y.data(), zr.data(), n); });
    if (z != zr) std::printf("vector add: results differ!\n");
    row("vector_add", "2^24", 3.0 * n * 4, t, l);
  }
  {
    const int64_t rows = 4096, cols = 1024;
    auto in = randomVec(rows * cols);
    std::vector<float> out(rows * cols), ref(rows * cols);
    tk::RowConfig p = tk::softmaxConfig(cols);
    double t = medianMs(repeats, [&] {
      tk::softmaxKernel().launch({rows}, cpu(p.numWarps), out.data(), in.data(), static_cast<int32_t>(cols),
                                 static_cast<int32_t>(cols), static_cast<int32_t>(cols), p.block);
    });
    double l = medianMs(repeats, [&] { softmaxLoop(in.data(), ref.data(), rows, cols); });
    double err = 0;
    for (size_t i = 0; i < out.size(); ++i) err = std::max(err, double(std::fabs(out[i] - ref[i])));
    if (err > 1e-6) std::printf("softmax: max difference %g\n", err);
    row("softmax", "4096x1024", 2.0 * rows * cols * 4, t, l);
  }
  {
    const int64_t rows = 4096, cols = 1024;
    auto x = randomVec(rows * cols), w = randomVec(cols), b = randomVec(cols);
    std::vector<float> y(rows * cols), yr(rows * cols), mean(rows), rstd(rows), mr(rows), rr(rows);
    tk::RowConfig p = tk::layerNormConfig(cols);
    double t = medianMs(repeats, [&] {
      tk::layerNormForwardKernel().launch({rows}, cpu(p.numWarps), x.data(), y.data(), w.data(), b.data(), mean.data(),
                                          rstd.data(), static_cast<int32_t>(cols), static_cast<int32_t>(cols), 1e-5f,
                                          p.block);
    });
    double l = medianMs(repeats, [&] {
      layerNormLoop(x.data(), yr.data(), w.data(), b.data(), mr.data(), rr.data(), rows, cols, 1e-5f);
    });
    row("layernorm", "4096x1024", 2.0 * rows * cols * 4, t, l);
  }
  return 0;
}
