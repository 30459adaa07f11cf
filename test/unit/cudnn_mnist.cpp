// The reference MNIST CNN through cuDNN and cuBLAS (see cudnn_mnist.h).
#include "cudnn_mnist.h"

#include <stdexcept>

namespace tile::reference {

namespace {
constexpr int kC1 = 32, kC2 = 64, kH1 = 28, kH2 = 14, kH3 = 7, kFc1In = kC2 * kH3 * kH3, kFc1Out = 128, kClasses = 10;
constexpr double kEps = 1e-5;
} // namespace

CudnnMnist::CudnnMnist(CudnnLayers &layers, int batch) : l_(layers), B_(batch) {
  const int64_t B = batch;
  struct Param {
    const char *name;
    std::vector<int64_t> shape;
  };
  const std::vector<Param> specs = {{"conv1.weight", {kC1, 1, 3, 3}},
                                    {"conv1.bias", {kC1}},
                                    {"bn1.weight", {kC1}},
                                    {"bn1.bias", {kC1}},
                                    {"conv2.weight", {kC2, kC1, 3, 3}},
                                    {"conv2.bias", {kC2}},
                                    {"bn2.weight", {kC2}},
                                    {"bn2.bias", {kC2}},
                                    {"fc1.weight", {kFc1Out, kFc1In}},
                                    {"fc1.bias", {kFc1Out}},
                                    {"fc2.weight", {kClasses, kFc1Out}},
                                    {"fc2.bias", {kClasses}}};
  for (const Param &p : specs) params_.push_back(arena_.add(p.name, p.shape));
  for (const Param &p : specs) grads_.push_back(arena_.add(std::string("grad ") + p.name, p.shape));
  auto act = [&](const char *name, std::vector<int64_t> shape) { return arena_.add(name, std::move(shape)); };
  x_ = act("input", {B, 1, kH1, kH1});
  c1_ = act("conv1.out", {B, kC1, kH1, kH1});
  y1_ = act("bn1.out", {B, kC1, kH1, kH1});
  r1_ = act("relu1.out", {B, kC1, kH1, kH1});
  p1_ = act("pool1.out", {B, kC1, kH2, kH2});
  mean1_ = act("bn1.mean", {kC1});
  inv1_ = act("bn1.inv_std", {kC1});
  c2_ = act("conv2.out", {B, kC2, kH2, kH2});
  y2_ = act("bn2.out", {B, kC2, kH2, kH2});
  r2_ = act("relu2.out", {B, kC2, kH2, kH2});
  p2_ = act("pool2.out", {B, kC2, kH3, kH3});
  mean2_ = act("bn2.mean", {kC2});
  inv2_ = act("bn2.inv_std", {kC2});
  h_ = act("fc1.out", {B, kFc1Out});
  hr_ = act("relu3.out", {B, kFc1Out});
  z_ = act("fc2.out", {B, kClasses});
  logp_ = act("log_softmax.out", {B, kClasses});
  dlogp_ = act("grad log_softmax.out", {B, kClasses});
  dz_ = act("grad fc2.out", {B, kClasses});
  dhr_ = act("grad relu3.out", {B, kFc1Out});
  dh_ = act("grad fc1.out", {B, kFc1Out});
  dp2_ = act("grad pool2.out", {B, kC2, kH3, kH3});
  dr2_ = act("grad relu2.out", {B, kC2, kH2, kH2});
  dy2_ = act("grad bn2.out", {B, kC2, kH2, kH2});
  dc2_ = act("grad conv2.out", {B, kC2, kH2, kH2});
  dp1_ = act("grad pool1.out", {B, kC1, kH2, kH2});
  dr1_ = act("grad relu1.out", {B, kC1, kH1, kH1});
  dy1_ = act("grad bn1.out", {B, kC1, kH1, kH1});
  dc1_ = act("grad conv1.out", {B, kC1, kH1, kH1});
  arena_.allocate();
}

void CudnnMnist::setParameters(const std::vector<models::NamedTensor> &params) {
  if (params.size() != params_.size()) throw std::invalid_argument("CudnnMnist: wrong number of parameters");
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].name != params_[i].name() || params[i].shape != params_[i].shape())
      throw std::invalid_argument("CudnnMnist: parameter " + params[i].name + " does not match " + params_[i].name());
    params_[i].fromVector(params[i].data);
  }
}

std::vector<models::NamedTensor> CudnnMnist::parameters() const {
  std::vector<models::NamedTensor> out;
  for (const models::Tensor &t : params_) out.push_back({t.name(), t.shape(), t.toVector<float>()});
  return out;
}

std::vector<models::NamedTensor> CudnnMnist::gradients() const {
  std::vector<models::NamedTensor> out;
  for (const models::Tensor &t : grads_) out.push_back({t.name(), t.shape(), t.toVector<float>()});
  return out;
}

void CudnnMnist::forward() {
  const int B = B_;
  const auto &p = params_;
  l_.convForward(x_.ptr(), p[0].ptr(), p[1].ptr(), c1_.ptr(), B, 1, kH1, kH1, kC1);
  l_.batchNormForward(c1_.ptr(), y1_.ptr(), p[2].ptr(), p[3].ptr(), mean1_.ptr(), inv1_.ptr(), B, kC1, kH1, kH1, kEps);
  l_.reluForward(y1_.ptr(), r1_.ptr(), B, kC1, kH1, kH1);
  l_.maxPoolForward(r1_.ptr(), p1_.ptr(), B, kC1, kH1, kH1);
  l_.convForward(p1_.ptr(), p[4].ptr(), p[5].ptr(), c2_.ptr(), B, kC1, kH2, kH2, kC2);
  l_.batchNormForward(c2_.ptr(), y2_.ptr(), p[6].ptr(), p[7].ptr(), mean2_.ptr(), inv2_.ptr(), B, kC2, kH2, kH2, kEps);
  l_.reluForward(y2_.ptr(), r2_.ptr(), B, kC2, kH2, kH2);
  l_.maxPoolForward(r2_.ptr(), p2_.ptr(), B, kC2, kH2, kH2);
  l_.linearForward(p2_.ptr(), p[8].ptr(), p[9].ptr(), h_.ptr(), B, kFc1In, kFc1Out);
  l_.reluForward(h_.ptr(), hr_.ptr(), B, kFc1Out, 1, 1);
  l_.linearForward(hr_.ptr(), p[10].ptr(), p[11].ptr(), z_.ptr(), B, kFc1Out, kClasses);
  l_.logSoftmaxForward(z_.ptr(), logp_.ptr(), B, kClasses);
}

// The mean NLL of the labels (float64 on the host) and its gradient wrt log p: -1/B at the label.
float CudnnMnist::loss(const std::vector<int32_t> &labels) {
  std::vector<float> logp = logp_.toVector<float>(), dlogp(logp.size(), 0.0f);
  double total = 0;
  for (int b = 0; b < B_; ++b) {
    total -= logp[size_t(b) * kClasses + size_t(labels[size_t(b)])];
    dlogp[size_t(b) * kClasses + size_t(labels[size_t(b)])] = -1.0f / float(B_);
  }
  dlogp_.fromVector(dlogp);
  return float(total / B_);
}

void CudnnMnist::backward() {
  const int B = B_;
  const auto &p = params_;
  const auto &g = grads_;
  l_.logSoftmaxBackward(logp_.ptr(), dlogp_.ptr(), dz_.ptr(), B, kClasses);
  l_.linearBackwardWeight(dz_.ptr(), hr_.ptr(), g[10].ptr(), B, kFc1Out, kClasses);
  l_.linearBackwardBias(dz_.ptr(), g[11].ptr(), B, kClasses);
  l_.linearBackwardData(dz_.ptr(), p[10].ptr(), dhr_.ptr(), B, kFc1Out, kClasses);
  l_.reluBackward(hr_.ptr(), dhr_.ptr(), h_.ptr(), dh_.ptr(), B, kFc1Out, 1, 1);
  l_.linearBackwardWeight(dh_.ptr(), p2_.ptr(), g[8].ptr(), B, kFc1In, kFc1Out);
  l_.linearBackwardBias(dh_.ptr(), g[9].ptr(), B, kFc1Out);
  l_.linearBackwardData(dh_.ptr(), p[8].ptr(), dp2_.ptr(), B, kFc1In, kFc1Out);
  l_.maxPoolBackward(p2_.ptr(), dp2_.ptr(), r2_.ptr(), dr2_.ptr(), B, kC2, kH2, kH2);
  l_.reluBackward(r2_.ptr(), dr2_.ptr(), y2_.ptr(), dy2_.ptr(), B, kC2, kH2, kH2);
  l_.batchNormBackward(c2_.ptr(), dy2_.ptr(), p[6].ptr(), dc2_.ptr(), g[6].ptr(), g[7].ptr(), mean2_.ptr(), inv2_.ptr(),
                       B, kC2, kH2, kH2, kEps);
  l_.convBackwardWeight(p1_.ptr(), dc2_.ptr(), g[4].ptr(), B, kC1, kH2, kH2, kC2);
  l_.convBackwardBias(dc2_.ptr(), g[5].ptr(), B, kC2, kH2, kH2);
  l_.convBackwardData(dc2_.ptr(), p[4].ptr(), dp1_.ptr(), B, kC1, kH2, kH2, kC2);
  l_.maxPoolBackward(p1_.ptr(), dp1_.ptr(), r1_.ptr(), dr1_.ptr(), B, kC1, kH1, kH1);
  l_.reluBackward(r1_.ptr(), dr1_.ptr(), y1_.ptr(), dy1_.ptr(), B, kC1, kH1, kH1);
  l_.batchNormBackward(c1_.ptr(), dy1_.ptr(), p[2].ptr(), dc1_.ptr(), g[2].ptr(), g[3].ptr(), mean1_.ptr(), inv1_.ptr(),
                       B, kC1, kH1, kH1, kEps);
  l_.convBackwardWeight(x_.ptr(), dc1_.ptr(), g[0].ptr(), B, 1, kH1, kH1, kC1);
  l_.convBackwardBias(dc1_.ptr(), g[1].ptr(), B, kC1, kH1, kH1);
}

std::vector<float> CudnnMnist::activationGradient(const std::string &conv) const {
  if (conv == "conv1") return dc1_.toVector<float>();
  if (conv == "conv2") return dc2_.toVector<float>();
  throw std::invalid_argument("CudnnMnist: no activation gradient named " + conv);
}

float CudnnMnist::trainStep(const std::vector<float> &images, const std::vector<int32_t> &labels, float lr) {
  if (int64_t(images.size()) != x_.numel() || int64_t(labels.size()) != B_)
    throw std::invalid_argument("CudnnMnist: the batch does not match the plan");
  x_.fromVector(images);
  forward();
  float mean = loss(labels);
  backward();
  for (size_t i = 0; i < params_.size(); ++i) l_.axpy(grads_[i].ptr(), params_[i].ptr(), params_[i].numel(), -lr);
  return mean;
}

} // namespace tile::reference
