// One training step, graphed or not (see TrainStep.h).
#include "tile/models/TrainStep.h"

#include <bit>
#include <stdexcept>

namespace tile::models {

TrainStep::TrainStep(MnistCnn &model, StepGraph &graph, bool graphed)
    : model_(model), graph_(graph), graphed_(graphed) {
  if (&model.launcher() != &graph)
    throw std::logic_error("TrainStep: the model must launch through the StepGraph (MnistCnn(graph, ...))");
  const size_t imageBytes = size_t(model.maxBatch() * kImagePixels) * sizeof(float);
  const size_t labelBytes = size_t(model.maxBatch()) * sizeof(int32_t);
  const size_t bytes = imageBytes + labelBytes + sizeof(float);
  std::byte *base;
  if (graph.hostMemory()) {
    plain_.resize(bytes);
    base = plain_.data();
  } else {
    // Page-locked: the copies are direct DMAs, and a captured copy replays from this address.
    pinned_ = rt::PinnedHostBuffer(bytes);
    base = pinned_.as<std::byte>();
  }
  images_ = reinterpret_cast<float *>(base);
  labels_ = reinterpret_cast<int32_t *>(base + imageBytes);
  loss_ = reinterpret_cast<float *>(base + imageBytes + labelBytes);
}

void TrainStep::body(int64_t n, float lr) {
  model_.enqueueBatch(graph_, images_, labels_, n);
  model_.forward();
  // The loss is final after forward(): its copy to the host rides beside the backward.
  CUstream lossCopy = graph_.fork();
  model_.enqueueLoss(graph_, loss_, lossCopy);
  model_.backward();
  model_.sgdStep(lr);
  graph_.join(lossCopy);
}

void TrainStep::checkBatch(int64_t n) const {
  if (n < 1 || n > model_.maxBatch())
    throw std::invalid_argument("TrainStep: a batch of " + std::to_string(n) + " images; the plan holds 1.." +
                                std::to_string(model_.maxBatch()));
  // Checked here on every step: a replayed graph copies whatever the staging memory holds.
  MnistCnn::checkLabels(labels_, n);
}

float TrainStep::runUngraphed(int64_t n, float lr) {
  checkBatch(n);
  body(n, lr);
  return loss();
}

void TrainStep::enqueue(int64_t n, float lr) {
  checkBatch(n);
  if (!graphed_) {
    body(n, lr);
    return;
  }
  // Everything the captured step bakes in: the batch size (copy sizes, grids) and the rate.
  const uint64_t shape = uint64_t(n) << 32 | std::bit_cast<uint32_t>(lr);
  graph_.run(shape, [&] { body(n, lr); });
}

float TrainStep::loss() {
  graph_.synchronize();
  return *loss_;
}

} // namespace tile::models
