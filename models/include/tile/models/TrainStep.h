// One training step of the MNIST CNN over its static memory plan: the batch copied in from
// staging memory (pinned on the GPU), forward, backward, the SGD update and the mean loss copied
// back. Graphed, the whole step is one CUDA graph (StepGraph) captured for the first batch of
// each size and replayed every step; not graphed, the same work is launched kernel by kernel on
// the same stream. Either way nothing inside the step waits for the GPU: the loss is read after
// it (loss()), outside the captured region.
#pragma once

#include "tile/models/Idx.h"
#include "tile/models/MnistCnn.h"
#include "tile/models/StepGraph.h"
#include "tile/runtime/Memory.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tile::models {

class TrainStep {
public:
  /// `model` must launch through `graph` (constructed as MnistCnn(graph, ...)).
  TrainStep(MnistCnn &model, StepGraph &graph, bool graphed = true);

  /// Where the caller puts the batch: model.maxBatch() images of 784 floats, and their labels.
  /// Not to be changed while a step is in flight (between enqueue() and loss()).
  std::span<float> images() const { return {images_, size_t(model_.maxBatch() * kImagePixels)}; }
  std::span<int32_t> labels() const { return {labels_, size_t(model_.maxBatch())}; }

  /// Enqueues one step over the first n staged images (their labels checked first). Graphed, the
  /// step replays the graph captured for (n, lr), capturing it first for a new (n, lr).
  void enqueue(int64_t n, float lr);
  /// Waits for the last step and returns its mean loss.
  float loss();
  /// enqueue + loss.
  float run(int64_t n, float lr) {
    enqueue(n, lr);
    return loss();
  }
  /// As run(), launched kernel by kernel even when graphed (to time each kernel: KernelProfiler).
  float runUngraphed(int64_t n, float lr);

  bool graphed() const { return graphed_; }
  const StepGraph &graph() const { return graph_; }

private:
  void checkBatch(int64_t n) const;
  void body(int64_t n, float lr);

  MnistCnn &model_;
  StepGraph &graph_;
  bool graphed_;
  std::vector<std::byte> plain_; // staging on the CPU executor
  rt::PinnedHostBuffer pinned_;  // staging on the GPU
  float *images_ = nullptr;
  int32_t *labels_ = nullptr;
  float *loss_ = nullptr;
};

} // namespace tile::models
