// The MNIST CNN (docs/models.md), every forward and backward operation a library kernel:
//   conv 1->32 (+ partial BN statistics) -> BN + relu + 2x2 pool (one kernel)
//   conv 32->64 (+ statistics; its weights copied tap-major first) -> BN + relu + 2x2 pool
//   linear 3136->128 + relu (from its weights transposed) -> linear 128->10 + log-softmax + NLL,
//   fused with the backward of both and of the relu (LinearCrossEntropy: fc2's gradients,
//   fc1's bias gradient, dh3 and its transpose)
// backward: fc1's weight (from dh3ᵀ: unit strides) and data gradients, BN+relu+pool backward
// (its dx sum is the conv bias grad), conv weight (split-K workspace) and data gradients; one
// SGD launch over all parameters.
//
// Every tensor is planned once for `maxBatch` images (Arena); a step may use fewer (the ragged
// last batch). Kernels go through a kernels::Launcher: DslLauncher (CPU executor or GPU JIT,
// chosen by the executable) or AotLauncher (GPU, runtime-only). No LLVM/MLIR in here.
#pragma once

#include "tile/kernels/Launcher.h"
#include "tile/models/Checkpoint.h"
#include "tile/models/StepGraph.h"
#include "tile/models/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tile::models {

inline constexpr const char *kMnistArchitecture = "mnist-cnn-v1";

class MnistCnn {
public:
  /// Plans and allocates every tensor for batches of up to maxBatch images, in host memory
  /// when launcher.hostMemory() (the CPU executor), else on the GPU. Parameters start at 0:
  /// call init() or setParameters().
  MnistCnn(kernels::Launcher &launcher, int64_t maxBatch);

  int64_t maxBatch() const { return maxBatch_; }
  const Arena &arena() const { return arena_; }

  /// PyTorch's default initialisation (Init.h) from `seed`, drawn layer by layer in order
  /// (conv1 weight, bias, conv2 weight, bias, fc1 weight, bias, fc2 weight, bias; BN gamma=1, beta=0).
  void init(uint64_t seed);

  /// The parameters: names (conv1.weight, bn1.weight, ..., PyTorch's state-dict names), shapes
  /// and values, in a fixed order; setParameters takes the same order and shapes.
  std::vector<TensorSpec> parameterSpecs() const;
  std::vector<NamedTensor> parameters() const;
  std::vector<NamedTensor> gradients() const; // after backward(): same order, "grad " names
  void setParameters(const std::vector<NamedTensor> &params);

  /// Copies a batch (n <= maxBatch images of 784 normalised floats, n labels in 0..9) in.
  void setBatch(const float *images, const int32_t *labels, int64_t n);
  /// As setBatch, but the copies are enqueued on `step`'s stream (captured into its graph): the
  /// images and labels must stay as they are (pinned on the GPU) until the step has run, and
  /// the labels must have been checked (checkLabels) — a replayed copy checks nothing.
  void enqueueBatch(StepGraph &step, const float *images, const int32_t *labels, int64_t n);
  /// Enqueues the copy of the last forward()'s mean loss to *dst (pinned on the GPU) on `step`'s
  /// stream, or on `branch` (one of step.fork()'s): read it after step.synchronize().
  void enqueueLoss(StepGraph &step, float *dst, CUstream branch = nullptr) const;
  /// Throws std::invalid_argument naming the first label outside 0..9.
  static void checkLabels(const int32_t *labels, int64_t n);
  /// The launcher every kernel of the model goes through.
  kernels::Launcher &launcher() const { return l_; }

  /// Forward over the batch set last (n images): logits and the loss (mean NLL), and, fused
  /// into the same pass, the gradients of fc2 and of fc1's bias and output. Returns nothing;
  /// loss() reads the mean back.
  void forward();
  /// Backward of the last forward(): the parameter gradients forward() left (fc1's weight, the
  /// batchnorms', the convolutions').
  /// forward() and backward() put independent work on the launcher's branches (Launcher::fork:
  /// the weights' derived copies, the weight gradients of fc1 and conv2, the convolutions' bias
  /// gradients) and join them before they return.
  void backward();
  /// p -= lr * grad over every parameter (one launch).
  void sgdStep(float lr);
  /// forward + backward + sgdStep; returns the batch's mean loss (read back: synchronises).
  float trainStep(float lr);

  float loss() const;                // mean loss of the last forward()
  std::vector<float> logits() const; // [n, 10] of the last forward()
  /// Predicted classes of the last forward() (argmax of the logits, first on ties).
  std::vector<int32_t> predictions() const;

  /// The products of the convolutions and of fc1 (the large linear layer) on TF32 tensor cores
  /// (sm_80+; off: exact f32, what the float64 and cuDNN checks at 1e-5 expect). Off by default; tile-mnist turns it on for GPUs
  /// with tensor cores (--precision). Takes effect at the next forward/backward (a
  /// captured step graph must be re-captured).
  void setTf32Products(bool on) { tf32Products_ = on; }
  bool tf32Products() const { return tf32Products_; }

  /// Named tensors for tests and diagnostics (e.g. "conv1.out").
  const std::vector<Tensor> &allTensors() const { return all_; }

private:
  kernels::Launcher &l_;
  int64_t maxBatch_;
  int64_t n_ = 0; // images in the current batch
  bool tf32Products_ = false;
  Arena arena_;
  std::vector<Tensor> all_;
  // Parameters (consecutive in the arena: one span), then their gradients (another span).
  Tensor w1_, b1_, g1_, be1_, w2_, b2_, g2_, be2_, w3_, b3_, w4_, b4_;
  Tensor dw1_, db1_, dg1_, dbe1_, dw2_, db2_, dg2_, dbe2_, dw3_, db3_, dw4_, db4_;
  Tensor params_, grads_;
  // Activations and their gradients.
  Tensor x_, labels_;
  Tensor c1_, stats1_, mean1_, rstd1_, p1_, arg1_;
  Tensor w2Taps_; // conv2's weights tap-major ([9, cout, cin]), refreshed by each forward()
  Tensor c2_, stats2_, mean2_, rstd2_, p2_, arg2_;
  Tensor w3T_; // fc1's weights transposed ([in, out]), refreshed by each forward()
  Tensor h3_, logits_, lossMean_, dlogits_;
  Tensor dh3_, dh3T_, dp2_, dc2_, dp1_, dc1_, fcWork_;
  // Workspaces apart where their users run on branches side by side.
  Tensor bn1Work_, bn2Work_, work1_, work2_, fc1WeightWork_;
  std::vector<Tensor> paramList() const;
  std::vector<Tensor> gradList() const;
};

} // namespace tile::models
