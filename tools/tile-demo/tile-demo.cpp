//===- tile-demo.cpp - the main job: the kernel library, end to end -------===//
// Runs every library kernel through the DSL's launch path on random inputs, on the GPU
// when there is one and on the CPU executor otherwise, and checks each against a float64
// host reference. Without a GPU it also compiles the kernels to PTX and reports the
// compile times.
#include "tile/kernels/Elementwise.h"
#include "tile/kernels/LayerNorm.h"
#include "tile/kernels/Matmul.h"
#include "tile/kernels/Softmax.h"
#include "tile/kernels/Registry.h"
#include "tile/runtime/Context.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Memory.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace tile;
using namespace tile::kernels;

namespace {

double relError(const std::vector<float> &out, const std::vector<double> &ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (std::isnan(out[i])) return INFINITY;
    num += (out[i] - ref[i]) * (out[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / (den > 0 ? den : 1));
}

std::vector<float> randomVector(size_t n, std::mt19937 &rng) {
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<float> v(n);
  for (float &x : v) x = d(rng);
  return v;
}

/// A float buffer on the executor's side: host memory for the CPU executor, device
/// memory (filled from the host) for the GPU.
class Buffer {
public:
  Buffer(std::vector<float> init, Executor ex) : host_(std::move(init)), gpu_(ex == Executor::GPU) {
    if (gpu_) dev_ = rt::DeviceBuffer::fromHost(host_);
  }
  /// Poisoned (NaN) output of n floats.
  static Buffer output(size_t n, Executor ex) { return Buffer(std::vector<float>(n, NAN), ex); }
  /// Device memory on the GPU, host memory on the CPU executor: an untyped address either way.
  DeviceAddress address() const { return DeviceAddress(gpu_ ? dev_.ptr() : reinterpret_cast<uint64_t>(host_.data())); }
  const std::vector<float> &read() {
    if (gpu_) dev_.copyToHost(host_.data(), host_.size() * sizeof(float));
    return host_;
  }

private:
  std::vector<float> host_;
  bool gpu_;
  rt::DeviceBuffer dev_;
};

/// Host time of a cached launch through the DSL (Kernel::launch: specialisation, lookup,
/// cuLaunchKernel): batches of 100 that never fill the launch queue, median of 100.
void reportLaunchOverhead() {
  const int n = 1024;
  rt::DeviceBuffer x(n * 4), y(n * 4), z(n * 4);
  auto launch = [&] { vectorAddKernel().launch({1}, x, y, z, n, ElementwiseConfig::block); };
  launch();
  rt::Context::get().synchronize();
  std::vector<double> perLaunch;
  for (int batch = 0; batch < 100; ++batch) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 100; ++i) launch();
    perLaunch.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 100);
    rt::Context::get().synchronize();
  }
  std::sort(perLaunch.begin(), perLaunch.end());
  std::printf("host time per cached launch through the DSL: %.2f us (median of 100 batches of 100)\n",
              perLaunch[perLaunch.size() / 2]);
}

/// Runs the library kernels through the DSL's launch path on `ex` and checks each
/// against a float64 host reference.
int runKernels(Executor ex) {
  std::mt19937 rng(std::random_device{}());
  if (ex == Executor::GPU) {
    const rt::DeviceInfo &info = rt::Context::get().info();
    std::printf("Executor: GPU %s (sm_%d%d)\n", info.name.c_str(), info.ccMajor, info.ccMinor);
  } else {
    std::printf("Executor: CPU (the same kernels compiled for this host; TILE_EXECUTOR=gpu|cpu chooses)\n");
  }
  std::printf("\n%-14s %-14s %-12s %10s  %s\n", "kernel", "shape", "rel. error", "time", "status");
  int failures = 0;
  auto timed = [&](auto &&launch) {
    auto t0 = std::chrono::steady_clock::now();
    launch();
    if (ex == Executor::GPU) rt::Context::get().synchronize();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  auto report = [&](const char *name, const std::string &shape, double err, double tol, double ms) {
    bool ok = err <= tol;
    failures += !ok;
    std::printf("%-14s %-14s %-12.2e %7.2f ms  %s\n", name, shape.c_str(), err, ms, ok ? "ok" : "FAILED");
  };
  LaunchOptions opts;
  opts.executor = ex;

  { // vector add, ragged size
    const int n = 1000003;
    auto x = randomVector(n, rng), y = randomVector(n, rng);
    Buffer dx(x, ex), dy(y, ex), dz = Buffer::output(n, ex);
    opts.numWarps = ElementwiseConfig::numWarps;
    double ms = timed([&] {
      vectorAddKernel().launch({cdiv(n, ElementwiseConfig::block)}, opts, dx.address(), dy.address(), dz.address(), n,
                               ElementwiseConfig::block);
    });
    std::vector<double> ref(n);
    for (int i = 0; i < n; ++i) ref[i] = double(x[i]) + double(y[i]);
    report("vector_add", std::to_string(n), relError(dz.read(), ref), 1e-7, ms);
  }
  for (int cols : {1000, 4096}) { // softmax, one row per program
    const int rows = 256;
    auto x = randomVector(size_t(rows) * cols, rng);
    Buffer dx(x, ex), dy = Buffer::output(x.size(), ex);
    RowConfig cfg = softmaxConfig(cols);
    opts.numWarps = cfg.numWarps;
    double ms =
        timed([&] { softmaxKernel().launch({rows}, opts, dy.address(), dx.address(), cols, cols, cols, cfg.block); });
    std::vector<double> ref(x.size());
    for (int r = 0; r < rows; ++r) {
      double m = -INFINITY, s = 0;
      for (int c = 0; c < cols; ++c) m = std::max(m, double(x[r * cols + c]));
      for (int c = 0; c < cols; ++c) s += std::exp(double(x[r * cols + c]) - m);
      for (int c = 0; c < cols; ++c) ref[r * cols + c] = std::exp(double(x[r * cols + c]) - m) / s;
    }
    report("softmax", std::to_string(rows) + "x" + std::to_string(cols), relError(dy.read(), ref), 1e-5, ms);
  }
  { // layernorm forward
    const int rows = 128, cols = 3000;
    auto x = randomVector(size_t(rows) * cols, rng), w = randomVector(cols, rng), b = randomVector(cols, rng);
    Buffer dx(x, ex), dw(w, ex), db(b, ex), dy = Buffer::output(x.size(), ex), dmean = Buffer::output(rows, ex),
                                            drstd = Buffer::output(rows, ex);
    RowConfig cfg = layerNormConfig(cols);
    opts.numWarps = cfg.numWarps;
    const float eps = 1e-5f;
    double ms = timed([&] {
      layerNormForwardKernel().launch({rows}, opts, dx.address(), dy.address(), dw.address(), db.address(),
                                      dmean.address(), drstd.address(), cols, cols, eps, cfg.block);
    });
    std::vector<double> ref(x.size());
    for (int r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int c = 0; c < cols; ++c) mean += x[r * cols + c];
      mean /= cols;
      for (int c = 0; c < cols; ++c) var += (x[r * cols + c] - mean) * (x[r * cols + c] - mean);
      double rstd = 1 / std::sqrt(var / cols + eps);
      for (int c = 0; c < cols; ++c) ref[r * cols + c] = (x[r * cols + c] - mean) * rstd * w[c] + b[c];
    }
    report("layernorm_fwd", std::to_string(rows) + "x" + std::to_string(cols), relError(dy.read(), ref), 1e-5, ms);
  }
  std::printf("\n%s (times include the first launch's compile)\n",
              failures ? "some kernels FAILED" : "all kernels match the float64 reference");
  if (ex == Executor::GPU) reportLaunchOverhead();
  return failures ? 1 : 0;
}

/// What the GPU would get: DSL -> PTX for sm_90, cold.
void showPTXCompile() {
  std::printf("\nCompiling for the GPU (sm_90) too:\n%-14s %-40s %10s %10s\n", "kernel", "specialisation", "compile",
              "PTX bytes");
  struct Job {
    const KernelBase *kernel;
    Specialization spec;
  };
  auto spec = [](const char *text) {
    Specialization s;
    parseSpecialization(text, s);
    return s;
  };
  std::vector<Job> jobs = {
      {&vectorAddKernel(), spec("w4,p16,p16,p16,i16,c1024")},
      {&softmaxKernel(), spec("w4,p16,p16,i16,i16,i16,c1024")},
      {&softmaxKernel(), spec("w16,p16,p16,i16,i16,i16,c16384")},
      {&layerNormForwardKernel(), spec("w8,p16,p16,p16,p16,p16,p16,i16,i16,f,c4096")},
  };
  for (const Job &j : jobs) {
    CompileRequest req;
    req.useDiskCache = false; // show the real (cold) compile time
    auto t0 = std::chrono::steady_clock::now();
    CompileResult r = j.kernel->compile(j.spec, req);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%-14s %-40s %7.1f ms %10zu\n", j.kernel->name().c_str(), j.spec.str().c_str(), ms,
                r.kernel.ptx.size());
  }
  std::printf("\nSee every stage with: build/tools/tilec/tilec --kernel=softmax --spec=w4,p16,p16,i16,i16,i16,c1024 "
              "--stage=tile|opt|llvm|ptx|regs\n");
}

} // namespace

int main() {
  try {
    Executor ex = resolveExecutor(Executor::Auto);
    std::string why;
    if (ex == Executor::CPU && !rt::gpuAvailable(&why)) std::printf("No GPU here (%s).\n", why.c_str());
    int rc = runKernels(ex);
    if (ex == Executor::CPU) showPTXCompile();
    return rc;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
