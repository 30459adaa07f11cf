//===- tile-demo.cpp - the main job: the kernel library, end to end -------===//
// With a GPU: runs every library kernel through the DSL's JIT launch path on random
// inputs and checks it against a float64 host reference. Without one: compiles every
// kernel (DSL → tile IR → PTX) and reports compile time, PTX size and what ptxas says.
#include "tile/kernels/Policy.h"
#include "tile/kernels/Registry.h"
#include "tile/runtime/Context.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Memory.h"

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

int runOnGpu() {
  std::mt19937 rng(std::random_device{}());
  const rt::DeviceInfo &info = rt::Context::get().info();
  std::printf("GPU: %s (sm_%d%d)\n\n%-14s %-14s %-12s %s\n", info.name.c_str(), info.ccMajor, info.ccMinor, "kernel",
              "shape", "rel. error", "status");
  int failures = 0;
  auto report = [&](const char *name, const std::string &shape, double err, double tol) {
    bool ok = err <= tol;
    failures += !ok;
    std::printf("%-14s %-14s %-12.2e %s\n", name, shape.c_str(), err, ok ? "ok" : "FAILED");
  };

  { // vector add, ragged size
    const int n = 1000003;
    auto x = randomVector(n, rng), y = randomVector(n, rng);
    auto dx = rt::DeviceBuffer::fromHost(x), dy = rt::DeviceBuffer::fromHost(y);
    rt::DeviceBuffer dz(n * sizeof(float));
    dz.fillBytes(0xFF);
    vectorAddKernel().launch({cdiv(n, ElementwiseConfig::block)}, dx, dy, dz, n, ElementwiseConfig::block);
    auto z = dz.toHost<float>(n);
    std::vector<double> ref(n);
    for (int i = 0; i < n; ++i) ref[i] = double(x[i]) + double(y[i]);
    report("vector_add", std::to_string(n), relError(z, ref), 1e-7);
  }
  for (int cols : {1000, 4096}) { // softmax
    const int rows = 256;
    auto x = randomVector(size_t(rows) * cols, rng);
    auto dx = rt::DeviceBuffer::fromHost(x);
    rt::DeviceBuffer dy(x.size() * sizeof(float));
    dy.fillBytes(0xFF);
    RowConfig cfg = softmaxConfig(cols);
    softmaxKernel().launch({rows}, LaunchOptions{cfg.numWarps, nullptr}, dy, dx, cols, cols, cols, cfg.block);
    auto y = dy.toHost<float>(x.size());
    std::vector<double> ref(x.size());
    for (int r = 0; r < rows; ++r) {
      double m = -INFINITY, s = 0;
      for (int c = 0; c < cols; ++c) m = std::max(m, double(x[r * cols + c]));
      for (int c = 0; c < cols; ++c) s += std::exp(double(x[r * cols + c]) - m);
      for (int c = 0; c < cols; ++c) ref[r * cols + c] = std::exp(double(x[r * cols + c]) - m) / s;
    }
    report("softmax", std::to_string(rows) + "x" + std::to_string(cols), relError(y, ref), 1e-5);
  }
  std::printf("\n%s\n", failures ? "some kernels FAILED" : "all kernels match the float64 reference");
  return failures ? 1 : 0;
}

int compileOnly(const std::string &why) {
  std::printf("No GPU here (%s).\nCompiling the kernel library for sm_90 instead (the CPU executor that runs "
              "kernels without a GPU is issue #3).\n\n%-14s %-34s %10s %10s\n",
              why.c_str(), "kernel", "specialisation", "compile", "PTX bytes");
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
    std::printf("%-14s %-34s %7.1f ms %10zu\n", j.kernel->name().c_str(), j.spec.str().c_str(), ms, r.ptx.size());
  }
  std::printf("\nSee every stage with: build/tools/tilec/tilec --kernel=softmax --spec=w4,p16,p16,i16,i16,i16,c1024 "
              "--stage=tile|opt|llvm|ptx|regs\n");
  return 0;
}

} // namespace

int main() {
  try {
    std::string why;
    return rt::gpuAvailable(&why) ? runOnGpu() : compileOnly(why);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
