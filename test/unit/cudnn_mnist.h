// The MNIST CNN (docs/models.md) wired from cuDNN and cuBLAS calls (CudnnLayers): the
// oracle of one whole training step of tile::models::MnistCnn. Same parameter names, shapes
// and order as MnistCnn; the loss's NLL is taken on the host from cuDNN's log-softmax (cuDNN
// has no NLL), its gradient goes back through cuDNN's log-softmax backward.
#pragma once

#include "cudnn_layers.h"

#include "tile/models/Checkpoint.h"
#include "tile/models/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tile::reference {

class CudnnMnist {
public:
  CudnnMnist(CudnnLayers &layers, int batch);

  void setParameters(const std::vector<models::NamedTensor> &params);
  std::vector<models::NamedTensor> parameters() const;
  std::vector<models::NamedTensor> gradients() const;

  /// forward + backward + SGD (p -= lr * grad) on n = batch images; returns the mean loss.
  float trainStep(const std::vector<float> &images, const std::vector<int32_t> &labels, float lr);
  std::vector<float> logits() const { return z_.toVector<float>(); }
  /// The gradient of the loss wrt a convolution's output ("conv1" or "conv2"), after trainStep.
  std::vector<float> activationGradient(const std::string &conv) const;

private:
  void forward();
  float loss(const std::vector<int32_t> &labels);
  void backward();
  CudnnLayers &l_;
  int B_;
  models::Arena arena_{models::MemoryKind::Device};
  std::vector<models::Tensor> params_, grads_;
  models::Tensor x_, c1_, y1_, r1_, p1_, mean1_, inv1_, c2_, y2_, r2_, p2_, mean2_, inv2_, h_, hr_, z_, logp_;
  models::Tensor dlogp_, dz_, dhr_, dh_, dp2_, dr2_, dy2_, dc2_, dp1_, dr1_, dy1_, dc1_;
};

} // namespace tile::reference
