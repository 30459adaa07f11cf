// bench_train_step: milliseconds per MNIST training step at batch 64 and 1024, ours
// replayed as one CUDA graph and launched kernel by kernel. A step is what tile-mnist runs: the
// batch copied from pinned host memory, forward, backward, the SGD update of every parameter and
// the loss copied back. Each figure: the mean of 100 back-to-back steps between two CUDA events,
// the median of 5 repeats, after 20 warm-up steps.
// Then the step's roofline at each batch size: its FLOPs and minimum bytes counted from
// the layer shapes (stepWork), and the floor FLOPs / peak + bytes / bandwidth + graph nodes x cost
// per node, with the peak, the bandwidths and the per-node cost measured in the same run
// (measureCeilings: the FFMA and TF32 mma rates by the DSL kernels of bench/RooflineKernels.h,
// copies for the bandwidths, a graph of empty kernels), and how far the graphed step is from it.
// Last, the per-kernel profile of one ungraphed step at each batch size (CUDA events around each
// launch).
// Runtime-only (the ahead-of-time kernels), so it runs on the GPU machine; prints lines starting
// "train-step" that scripts/gpu-check.sh copies into its summary. Without a GPU it prints the counts.
#include "bench_kernels_aot.h"

#include "tile/kernels/AotLauncher.h"
#include "tile/models/KernelProfiler.h"
#include "tile/models/MnistCnn.h"
#include "tile/models/ProfileTable.h"
#include "tile/models/StepGraph.h"
#include "tile/models/TrainStep.h"
#include "tile/runtime/Context.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Graph.h"
#include "tile/runtime/Launch.h"
#include "tile/runtime/Memory.h"
#include "tile/runtime/Stream.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
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
  for (float &p : step.images()) p = next() % 5 == 0 ? (float(next() % 256) / 255.0f - 0.1307f) / 0.3081f : background;
  int i = 0;
  for (int32_t &l : step.labels()) l = i++ % 10;
}

struct Timing {
  double median, lo, hi;
  float loss;
  size_t nodes;
  bool tf32; // the model ran its convolutions on TF32 tensor cores
};

Timing timeSteps(kernels::Launcher &aot, int64_t batch, bool graphed, bool tf32) {
  StepGraph graph(aot);
  MnistCnn model(graph, batch);
  model.init(0);
  model.setTf32Products(tf32);
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
  return {ms[ms.size() / 2], ms.front(), ms.back(), step.loss(), graph.nodes(), model.tf32Products()};
}

std::string profileOneStep(kernels::Launcher &aot, int64_t batch, bool tf32) {
  KernelProfiler profiler(aot);
  StepGraph graph(profiler);
  MnistCnn model(graph, batch);
  model.init(0);
  model.setTf32Products(tf32);
  TrainStep step(model, graph, /*graphed=*/false);
  fillBatch(step);
  for (int i = 0; i < 3; ++i) step.run(batch, kLr); // warm: every kernel loaded
  profiler.start();
  step.run(batch, kLr);
  profiler.stop();
  return kernelTimeTable(profiler.times(), "per-kernel times of one training step, batch " + std::to_string(batch) +
                                               (tf32 ? ", tf32" : ", f32") +
                                               " products (CUDA events around each launch, not graphed):");
}

// ---- The roofline of a step -------------------------------------------------------------------------------

// What one training step must do at batch B, counted from the layer shapes of docs/models.md,
// kernel by kernel in the order MnistCnn launches them (forward, backward, sgdStep).
// FLOPs: a multiply-add is 2, any other arithmetic op or comparison 1 (exp and log included).
// Products: conv and linear forward, backward data (not for conv1: its input needs no gradient) and
// backward weights. Elementwise, per element: conv/linear bias 1; batchnorm statistics 3 (sum, sum
// of squares); batchnorm apply 2 (x * scale + shift), relu 1, 2x2 max pool 3 per output; batchnorm
// + relu + pool backward 12 (pool routing, relu mask, x-hat, the two channel sums, dx, the conv bias
// gradient's sum); log-softmax + NLL with its gradient 7 per logit and 2 per image; relu backward
// and bias gradients 1 (both fused into the classifier head's kernel); SGD 2 per parameter.
// Bytes: the minimum for this sequence of kernels: every tensor a kernel needs read once and every
// tensor it produces written once (f32 and the int32 labels 4 bytes, the pools' argmax 1); a tensor
// two kernels read counts twice. Not counted: what our kernels add on top (split-K and batchnorm
// partial sums, re-reads within a kernel), nor the batchnorms' per-channel vectors outside the SGD
// update (mean, rstd, gamma, beta: under 2 KB). Host bytes: the batch (images, labels) copied in and
// the loss copied back, over the host link.
struct StepWork {
  double flops = 0, convFlops = 0; // convFlops: the convolutions' products (on TF32 tensor cores by default)
  double deviceBytes = 0, hostBytes = 0;
};

StepWork stepWork(int64_t batch) {
  const double B = double(batch);
  // Activations (elements) and parameters.
  const double x = B * 28 * 28, c1 = B * 32 * 28 * 28, p1 = B * 32 * 14 * 14, c2 = B * 64 * 14 * 14,
               p2 = B * 64 * 7 * 7, h3 = B * 128, z = B * 10;
  // Weights with their biases; every parameter (the batchnorms' gammas and betas too).
  const double w1 = 32 * 1 * 9 + 32, w2 = 64 * 32 * 9 + 64, w3 = 128 * 3136 + 128, w4 = 10 * 128 + 10;
  const double params = w1 + w2 + w3 + w4 + 2 * 32 + 2 * 64;
  StepWork s;
  auto kernel = [&](double flops, double readF32, double writeF32, double otherBytes = 0) {
    s.flops += flops;
    s.deviceBytes += 4 * (readF32 + writeF32) + otherBytes;
  };
  auto conv = [&](double outputs, double k) { // products of a convolution: 2 FLOPs per output per k
    s.convFlops += 2 * outputs * k;
    return 2 * outputs * k;
  };
  // Forward.
  kernel(conv(c1, 1 * 9) + c1 + 3 * c1, x + w1, c1);   // conv1 + bias + BN1 statistics
  kernel(3 * c1 + 3 * p1, c1, p1, p1);                 // BN1 + relu + pool (argmax: 1 byte)
  kernel(conv(c2, 32 * 9) + c2 + 3 * c2, p1 + w2, c2); // conv2 + bias + BN2 statistics
  kernel(3 * c2 + 3 * p2, c2, p2, p2);                 // BN2 + relu + pool
  kernel(2 * h3 * 3136 + 2 * h3, p2 + w3, h3);         // fc1 + bias + relu
  // fc2 + bias + log-softmax + NLL and their backward, with fc1's relu backward and bias
  // gradient (LinearCrossEntropy): reads h3, fc2's parameters and the labels; writes the logits,
  // their gradient, dh3, fc2's gradients, fc1's bias gradient and the loss.
  kernel(2 * z * 128 + z + 7 * z + 2 * B + 2 * (10 * 128) * B + z + 2 * h3 * 10 + 2 * h3, h3 + w4,
         2 * z + h3 + w4 + 128 + 1, 4 * B);
  // Backward.
  kernel(2 * (128 * 3136) * B, h3 + p2, 128 * 3136);            // fc1 weight gradient
  kernel(2 * p2 * 128, h3 + 128 * 3136, p2);                    // fc1 data gradient
  kernel(12 * c2, c2 + p2, c2, p2);                             // pool2 + relu + BN2 backward
  kernel(conv(64 * 32 * 9, B * 14 * 14), p1 + c2, 64 * 32 * 9); // conv2 weight gradient
  kernel(conv(p1, 64 * 9), c2 + 64 * 32 * 9, p1);               // conv2 data gradient
  kernel(12 * c1, c1 + p1, c1, p1);                             // pool1 + relu + BN1 backward
  kernel(conv(32 * 9, B * 28 * 28), x + c1, 32 * 9);            // conv1 weight gradient
  kernel(2 * params, 2 * params, params);                       // SGD over every parameter
  s.hostBytes = 4 * (x + B) + 4;
  return s;
}

// The ceilings of the floor, measured on this device: FP32 FMA rate, TF32 mma.sync rate (the
// instruction the library's TF32 convolutions use; not wgmma's higher peak), device bandwidth,
// host-to-device bandwidth from pinned memory, and the cost of one node of a replayed CUDA graph.
// Each is the best of 5 timings: a ceiling is the fastest the device was seen to go.
struct Ceilings {
  double fp32Tflops = 0, tf32Tflops = 0, deviceGBps = 0, hostGBps = 0, usPerNode = 0;
};

constexpr int kGraphNodes = 1000, kRepeatsOfCeilings = 5;
// The roofline kernels' tile (bench/RooflineKernels.h; the one variant gen_bench_kernels_aot compiles):
// 64 x 64 accumulators on 4 warps, K = 8, 16 dots per loop iteration.
constexpr int kRoofBM = 64, kRoofBN = 64, kRoofBK = 8, kRoofUnroll = 16, kRoofWarps = 4;

// The fastest of kRepeatsOfCeilings timings (CUDA events on s) of what enqueue() puts on s, in ms;
// after one untimed run (the driver's JIT, clocks, caches).
template <class F> double bestMs(rt::Stream &s, F enqueue) {
  enqueue();
  double best = 1e300;
  for (int r = 0; r < kRepeatsOfCeilings; ++r) {
    rt::Event start, stop;
    start.record(s.handle());
    enqueue();
    stop.record(s.handle());
    stop.synchronize();
    best = std::min(best, double(stop.elapsedMs(start)));
  }
  return best;
}

Ceilings measureCeilings() {
  const rt::DeviceInfo &d = rt::Context::get().info();
  rt::Stream s;
  Ceilings c;
  const unsigned sms = unsigned(d.smCount);
  // FP32 FFMA and TF32 mma.sync: chains of dot on operands loaded once, 8 programs of 4 warps per SM.
  auto dotRate = [&](bool tf32) {
    const unsigned programs = 8 * sms;
    const int iters = 256;
    rt::DeviceBuffer in(size_t(kRoofBM + kRoofBN) * kRoofBK * sizeof(float));
    in.fillBytes(0); // zeros: the chains stay finite, and the arithmetic costs the same
    rt::DeviceBuffer out(size_t(programs) * kRoofBM * kRoofBN * sizeof(float));
    const rt::AotLaunchConfig cfg{rt::Dim3{programs, 1, 1}, kRoofWarps, s.handle()};
    const double ms = bestMs(s, [&] {
      aot_bench::roof_dot(cfg, in.ptr(), out.ptr(), iters, kRoofBM, kRoofBN, kRoofBK, kRoofUnroll, tf32 ? 1 : 0);
    });
    return 2.0 * kRoofBM * kRoofBN * kRoofBK * kRoofUnroll * double(iters) * programs / (ms * 1e-3) / 1e12;
  };
  c.fp32Tflops = dotRate(false);
  if (d.ccMajor >= 8) c.tf32Tflops = dotRate(true); // TF32 mma needs sm_80
  { // Device bandwidth: cuMemcpyDtoD of 512 MiB (far past L2), 4 copies per timing, read + write counted.
    const size_t bytes = size_t(512) << 20;
    rt::DeviceBuffer src(bytes), dst(bytes);
    src.fillBytes(1);
    const double ms = bestMs(s, [&] {
      for (int i = 0; i < 4; ++i) rt::copyDeviceToDevice(dst.ptr(), src.ptr(), bytes, s.handle());
    });
    c.deviceGBps = 2.0 * 4 * double(bytes) / (ms * 1e-3) / 1e9;
  }
  { // Host-to-device from pinned memory, as the batch travels: 64 MiB, 4 copies per timing.
    const size_t bytes = size_t(64) << 20;
    rt::PinnedHostBuffer host(bytes);
    rt::DeviceBuffer dev(bytes);
    const double ms = bestMs(s, [&] {
      for (int i = 0; i < 4; ++i) rt::copyHostToDeviceAsync(dev.ptr(), host.data(), bytes, s.handle());
    });
    c.hostGBps = 4.0 * double(bytes) / (ms * 1e-3) / 1e9;
  }
  { // Per-node cost: a graph of kGraphNodes chained one-warp empty kernels (stream capture chains them,
    // as it chains the step's nodes), replayed 10 times per timing.
    rt::DeviceBuffer unused(16);
    const rt::AotLaunchConfig cfg{rt::Dim3{1, 1, 1}, 1, s.handle()};
    aot_bench::roof_empty(cfg, unused.ptr()); // loads the module outside the capture
    rt::Graph g;
    {
      rt::StreamCapture capture(s.handle());
      for (int i = 0; i < kGraphNodes; ++i) aot_bench::roof_empty(cfg, unused.ptr());
      g = capture.end();
    }
    rt::GraphExec exec(g);
    const int replays = 10;
    const double ms = bestMs(s, [&] {
      for (int i = 0; i < replays; ++i) exec.launch(s.handle());
    });
    c.usPerNode = ms * 1e3 / (double(replays) * kGraphNodes);
  }
  return c;
}

void printWork(int64_t batch, size_t nodes) {
  const StepWork w = stepWork(batch);
  std::printf("train-step batch %4lld  work  %.3f GFLOP (%.3f in the convolutions), %.1f MB device memory, %.2f MB "
              "host<->device",
              static_cast<long long>(batch), w.flops * 1e-9, w.convFlops * 1e-9, w.deviceBytes * 1e-6,
              w.hostBytes * 1e-6);
  if (nodes) std::printf(", %zu graph nodes", nodes);
  std::printf("\n");
}

// The floor: FLOPs / peak + bytes / bandwidth + nodes x per-node cost (a sum:
// no overlap assumed between the terms). The bytes term holds the device bytes at the device
// bandwidth and the host bytes at the host-to-device bandwidth; the nodes are the graphed step's.
// Printed for f32 convolutions and for TF32 ones (the convolutions' products at the mma.sync rate,
// the rest at the FMA rate); the ratio to ours on the line of the precision ours ran.
void printFloor(int64_t batch, const std::vector<Timing> &graphed, const Ceilings &c) {
  const StepWork w = stepWork(batch);
  const double bytesMs = (w.deviceBytes / (c.deviceGBps * 1e9) + w.hostBytes / (c.hostGBps * 1e9)) * 1e3;
  const double nodesMs = double(graphed.front().nodes) * c.usPerNode * 1e-3;
  for (bool tf32 : {false, true}) {
    if (tf32 && c.tf32Tflops <= 0) continue; // no TF32 tensor cores before sm_80
    const double flopsMs = (tf32 ? w.convFlops / (c.tf32Tflops * 1e12) + (w.flops - w.convFlops) / (c.fp32Tflops * 1e12)
                                 : w.flops / (c.fp32Tflops * 1e12)) *
                           1e3;
    const double floorMs = flopsMs + bytesMs + nodesMs;
    char measured[192];
    if (tf32)
      std::snprintf(measured, sizeof measured, "%.1f TFLOP/s tf32 mma.sync (convolutions), %.1f fp32 (the rest)",
                    c.tf32Tflops, c.fp32Tflops);
    else std::snprintf(measured, sizeof measured, "%.1f TFLOP/s fp32", c.fp32Tflops);
    std::printf("train-step batch %4lld  floor %s %8.4f ms = flops %.4f ms + bytes %.4f ms + nodes %.4f ms "
                "(measured: %s, %.0f GB/s device, %.1f GB/s host->device, %.2f us/node); ",
                static_cast<long long>(batch), tf32 ? "tf32" : "fp32", floorMs, flopsMs, bytesMs, nodesMs, measured,
                c.deviceGBps, c.hostGBps, c.usPerNode);
    const Timing *ours = nullptr;
    for (const Timing &t : graphed)
      if (t.tf32 == tf32) ours = &t;
    if (ours) std::printf("ours graph%s is %.2f x the floor\n", tf32 ? " tf32" : "", ours->median / floorMs);
    else std::printf("ours not timed in this precision\n");
  }
}

} // namespace

int main() {
  std::string why;
  if (!rt::gpuAvailable(&why)) {
    std::printf("bench_train_step: no usable GPU (%s); the step's counts only:\n", why.c_str());
    for (int64_t batch : {64, 1024}) printWork(batch, 0);
    return 0;
  }
  try {
    const rt::DeviceInfo &d = rt::Context::get().info();
    std::printf("bench_train_step on %s (sm_%d%d): ms per training step (batch copy from pinned memory + forward + "
                "backward + SGD update), mean of %d steps, median of %d repeats, after %d warm-up steps\n",
                d.name.c_str(), d.ccMajor, d.ccMinor, kSteps, kRepeats, kWarmup);
    kernels::AotLauncher aot;
    // Exact f32 convolutions (the 1e-5 checks' precision), then TF32 ones (the model's default on
    // sm_80+, as PyTorch's cuDNN convolutions by default).
    std::vector<bool> precisions{false};
    if (d.ccMajor >= 8) precisions.push_back(true);
    std::vector<std::pair<int64_t, std::vector<Timing>>> graphedTimings;
    for (int64_t batch : {64, 1024}) {
      graphedTimings.emplace_back(batch, std::vector<Timing>{});
      for (bool tf32 : precisions)
        for (bool graphed : {true, false}) {
          Timing t = timeSteps(aot, batch, graphed, tf32);
          if (graphed) graphedTimings.back().second.push_back(t);
          const std::string label = std::string(graphed ? "graph" : "no-graph") + (tf32 ? " tf32" : "");
          std::printf("train-step batch %4lld  ours %-14s %8.4f ms  (min %.4f, max %.4f; %s; loss after %d steps "
                      "%.4f)\n",
                      static_cast<long long>(batch), label.c_str(), t.median, t.lo, t.hi,
                      graphed ? (std::to_string(t.nodes) + " graph nodes").c_str() : "kernel by kernel",
                      kWarmup + kSteps * kRepeats, double(t.loss));
          std::fflush(stdout);
        }
    }
    // The ceilings after our timings: should one of their kernels break the context, only the floor
    // lines are lost.
    try {
      const Ceilings ceilings = measureCeilings();
      for (const auto &[batch, t] : graphedTimings) {
        printWork(batch, t.front().nodes);
        printFloor(batch, t, ceilings);
      }
    } catch (const std::exception &e) {
      for (const auto &[batch, t] : graphedTimings) printWork(batch, t.front().nodes);
      std::printf("train-step floor: not measured (%s)\n", e.what());
    }
    std::fflush(stdout);
    // The profile of the precision tile-mnist takes by default here (tf32 on sm_80+).
    for (int64_t batch : {64, 1024}) std::printf("%s", profileOneStep(aot, batch, precisions.back()).c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bench_train_step: %s\n", e.what());
    return 1;
  }
  return 0;
}
