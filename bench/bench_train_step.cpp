// bench_train_step: milliseconds per MNIST training step (issue 9) at batch 64 and 1024, ours
// replayed as one CUDA graph and launched kernel by kernel. A step is what tile-mnist runs: the
// batch copied from pinned host memory, forward, backward, the SGD update of every parameter and
// the loss copied back. Each figure: the mean of 100 back-to-back steps between two CUDA events,
// the median of 5 repeats, after 20 warm-up steps. Then the per-kernel profile of one ungraphed
// step at each batch size (CUDA events around each launch).
// Runtime-only (the ahead-of-time kernels), so it runs on the GPU machine; prints lines starting
// "train-step" that tools/gpu-check.sh copies into its summary.
#include "tile/kernels/AotLauncher.h"
#include "tile/models/KernelProfiler.h"
#include "tile/models/MnistCnn.h"
#include "tile/models/ProfileTable.h"
#include "tile/models/StepGraph.h"
#include "tile/models/TrainStep.h"
#include "tile/runtime/Context.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Stream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

using namespace tile;
using namespace tile::models;

namespace {

constexpr int kWarmup = 20, kSteps = 100, kRepeats = 5;
constexpr float kLr = 0.01f;

// Normalised MNIST-like images (mostly background, some strokes) and labels, fixed by the seed.
void fillBatch(TrainStep &step) {
  uint32_t state = 2024;
  auto next = [&] { return (state = state * 1664525u + 1013904223u) >> 8; };
  const float background = (0.0f - 0.1307f) / 0.3081f;
  for (float &p : step.images())
    p = next() % 5 == 0 ? (float(next() % 256) / 255.0f - 0.1307f) / 0.3081f : background;
  int i = 0;
  for (int32_t &l : step.labels()) l = i++ % 10;
}

struct Timing {
  double median, lo, hi;
  float loss;
  size_t nodes;
};

Timing timeSteps(kernels::Launcher &aot, int64_t batch, bool graphed) {
  StepGraph graph(aot);
  MnistCnn model(graph, batch);
  model.init(0);
  TrainStep step(model, graph, graphed);
  fillBatch(step);
  for (int i = 0; i < kWarmup; ++i) step.run(batch, kLr);
  std::vector<double> ms;
  for (int r = 0; r < kRepeats; ++r) {
    rt::Event start, stop;
    start.record(graph.stream());
    for (int i = 0; i < kSteps; ++i) step.enqueue(batch, kLr);
    stop.record(graph.stream());
    stop.synchronize();
    ms.push_back(double(stop.elapsedMs(start)) / kSteps);
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.back(), step.loss(), graph.nodes()};
}

std::string profileOneStep(kernels::Launcher &aot, int64_t batch) {
  KernelProfiler profiler(aot);
  StepGraph graph(profiler);
  MnistCnn model(graph, batch);
  model.init(0);
  TrainStep step(model, graph, /*graphed=*/false);
  fillBatch(step);
  for (int i = 0; i < 3; ++i) step.run(batch, kLr);  // warm: every kernel loaded
  profiler.start();
  step.run(batch, kLr);
  profiler.stop();
  return kernelTimeTable(profiler.times(), "per-kernel times of one training step, batch " + std::to_string(batch) +
                                               " (CUDA events around each launch, not graphed):");
}

}  // namespace

int main() {
  std::string why;
  if (!rt::gpuAvailable(&why)) {
    std::printf("bench_train_step: no usable GPU (%s)\n", why.c_str());
    return 0;
  }
  try {
    const rt::DeviceInfo &d = rt::Context::get().info();
    std::printf("bench_train_step on %s (sm_%d%d): ms per training step (batch copy from pinned memory + forward + "
                "backward + SGD update), mean of %d steps, median of %d repeats, after %d warm-up steps\n",
                d.name.c_str(), d.ccMajor, d.ccMinor, kSteps, kRepeats, kWarmup);
    kernels::AotLauncher aot;
    for (int64_t batch : {64, 1024}) {
      for (bool graphed : {true, false}) {
        Timing t = timeSteps(aot, batch, graphed);
        std::printf("train-step batch %4lld  ours %-9s %8.4f ms  (min %.4f, max %.4f; %s; loss after %d steps %.4f)\n",
                    static_cast<long long>(batch), graphed ? "graph" : "no-graph", t.median, t.lo, t.hi,
                    graphed ? (std::to_string(t.nodes) + " graph nodes").c_str() : "kernel by kernel",
                    kWarmup + kSteps * kRepeats, double(t.loss));
        std::fflush(stdout);
      }
    }
    for (int64_t batch : {64, 1024}) std::printf("%s", profileOneStep(aot, batch).c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bench_train_step: %s\n", e.what());
    return 1;
  }
  return 0;
}
