// The MNIST CNN over the kernel library (see MnistCnn.h).
#include "tile/models/MnistCnn.h"

#include "tile/kernels/BatchNormSplit.h"
#include "tile/kernels/Conv.h"
#include "tile/kernels/Linear.h"
#include "tile/kernels/LinearCrossEntropy.h"
#include "tile/kernels/Sgd.h"
#include "tile/kernels/Transpose.h"
#include "tile/models/Idx.h"
#include "tile/models/Init.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace tile::models {

namespace tk = tile::kernels;

namespace {
constexpr int64_t kC1 = 32, kC2 = 64, kH1 = 28, kH2 = 14, kH3 = 7, kFc1In = kC2 * kH3 * kH3, kFc1Out = 128;
constexpr int64_t kClasses = kNumClasses;
constexpr float kEps = 1e-5f;
} // namespace

MnistCnn::MnistCnn(kernels::Launcher &launcher, int64_t maxBatch)
    : l_(launcher), maxBatch_(maxBatch), arena_(launcher.hostMemory() ? MemoryKind::Host : MemoryKind::Device) {
  if (maxBatch < 1)
    throw std::invalid_argument("MnistCnn: the batch size must be >= 1, got " + std::to_string(maxBatch));
  const int64_t B = maxBatch;
  auto add = [&](const char *name, std::vector<int64_t> shape, ElemType t = ElemType::F32) {
    Tensor x = arena_.add(name, std::move(shape), t);
    all_.push_back(x);
    return x;
  };
  auto addTransfer = [&](const char *name, std::vector<int64_t> shape, ElemType t = ElemType::F32) {
    Tensor x = arena_.addTransfer(name, std::move(shape), t);
    all_.push_back(x);
    return x;
  };
  // Parameters, consecutive (one span for the SGD update).
  w1_ = add("conv1.weight", {kC1, 1, 3, 3});
  b1_ = add("conv1.bias", {kC1});
  g1_ = add("bn1.weight", {kC1});
  be1_ = add("bn1.bias", {kC1});
  w2_ = add("conv2.weight", {kC2, kC1, 3, 3});
  b2_ = add("conv2.bias", {kC2});
  g2_ = add("bn2.weight", {kC2});
  be2_ = add("bn2.bias", {kC2});
  w3_ = add("fc1.weight", {kFc1Out, kFc1In});
  b3_ = add("fc1.bias", {kFc1Out});
  w4_ = add("fc2.weight", {kClasses, kFc1Out});
  b4_ = add("fc2.bias", {kClasses});
  params_ = arena_.span("parameters", w1_, b4_);
  // Their gradients, in the same order and layout (so the spans line up element for element).
  dw1_ = add("grad conv1.weight", {kC1, 1, 3, 3});
  db1_ = add("grad conv1.bias", {kC1});
  dg1_ = add("grad bn1.weight", {kC1});
  dbe1_ = add("grad bn1.bias", {kC1});
  dw2_ = add("grad conv2.weight", {kC2, kC1, 3, 3});
  db2_ = add("grad conv2.bias", {kC2});
  dg2_ = add("grad bn2.weight", {kC2});
  dbe2_ = add("grad bn2.bias", {kC2});
  dw3_ = add("grad fc1.weight", {kFc1Out, kFc1In});
  db3_ = add("grad fc1.bias", {kFc1Out});
  dw4_ = add("grad fc2.weight", {kClasses, kFc1Out});
  db4_ = add("grad fc2.bias", {kClasses});
  grads_ = arena_.span("gradients", dw1_, db4_);
  // Activations.
  x_ = addTransfer("input", {B, 1, kH1, kH1});
  labels_ = addTransfer("labels", {B}, ElemType::I32);
  c1_ = add("conv1.out", {B, kC1, kH1, kH1});
  stats1_ = add("conv1.stats", {tk::Conv2dForward::statsElements(B, kH1, kH1, kC1)});
  mean1_ = add("bn1.mean", {kC1});
  rstd1_ = add("bn1.rstd", {kC1});
  p1_ = add("pool1.out", {B, kC1, kH2, kH2});
  arg1_ = add("pool1.argmax", {B, kC1, kH2, kH2}, ElemType::I8);
  w2Taps_ = add("conv2.weight.taps", {9, kC2, kC1});
  c2_ = add("conv2.out", {B, kC2, kH2, kH2});
  stats2_ = add("conv2.stats", {tk::Conv2dForward::statsElements(B, kH2, kH2, kC2)});
  mean2_ = add("bn2.mean", {kC2});
  rstd2_ = add("bn2.rstd", {kC2});
  p2_ = add("pool2.out", {B, kC2, kH3, kH3});
  arg2_ = add("pool2.argmax", {B, kC2, kH3, kH3}, ElemType::I8);
  w3T_ = add("fc1.weight.transposed", {kFc1In, kFc1Out});
  h3_ = add("fc1.out", {B, kFc1Out});
  logits_ = addTransfer("fc2.out", {B, kClasses});
  lossMean_ = addTransfer("loss.mean", {1});
  // Gradients of the activations.
  dlogits_ = add("grad fc2.out", {B, kClasses});
  dh3_ = add("grad fc1.out", {B, kFc1Out});
  dh3T_ = add("grad fc1.out.transposed", {kFc1Out, B});
  dp2_ = add("grad pool2.out", {B, kC2, kH3, kH3});
  dc2_ = add("grad conv2.out", {B, kC2, kH2, kH2});
  dp1_ = add("grad pool1.out", {B, kC1, kH2, kH2});
  dc1_ = add("grad conv1.out", {B, kC1, kH1, kH1});
  // The weight gradients' split-K partial sums, one workspace each: conv2's runs on a branch
  // beside conv1's.
  work1_ = add("conv1.workspace", {tk::Conv2dBackwardWeight::workspaceElements(B, 1, kH1, kH1, kC1)});
  work2_ = add("conv2.workspace", {tk::Conv2dBackwardWeight::workspaceElements(B, kC1, kH2, kH2, kC2)});
  // The batchnorms' per-chunk partial sums (forward, then backward), one workspace per layer: the
  // last reduction of bn2's backward runs on a branch beside bn1's.
  bn1Work_ =
      add("bn1.workspace", {tk::BatchNormSplit::workspaceElements(B, kC1, kH1, kH1, tk::Conv2dForward::kMinTileRows)});
  bn2Work_ =
      add("bn2.workspace", {tk::BatchNormSplit::workspaceElements(B, kC2, kH2, kH2, tk::Conv2dForward::kMinTileRows)});
  // The partial sums of fc1's split-K forward and of the fused head (one at a time), and of
  // fc1's weight gradient (on a branch of its own). At least one float each so the arena has it.
  fcWork_ = add("fc.workspace", {std::max<int64_t>({1, tk::Linear::forwardWorkspaceElements(B, kFc1In, kFc1Out),
                                                    tk::LinearCrossEntropy::workspaceElements(B, kFc1Out, kClasses)})});
  fc1WeightWork_ = add("fc1.weight.workspace",
                       {std::max<int64_t>(1, tk::Linear::backwardWeightWorkspaceElements(B, kFc1In, kFc1Out))});
  arena_.allocate();
}

std::vector<Tensor> MnistCnn::paramList() const {
  return {w1_, b1_, g1_, be1_, w2_, b2_, g2_, be2_, w3_, b3_, w4_, b4_};
}
std::vector<Tensor> MnistCnn::gradList() const {
  return {dw1_, db1_, dg1_, dbe1_, dw2_, db2_, dg2_, dbe2_, dw3_, db3_, dw4_, db4_};
}

void MnistCnn::init(uint64_t seed) {
  Rng rng(seed);
  auto layer = [&](const Tensor &w, const Tensor &b, int64_t fanIn) {
    std::vector<float> wv(static_cast<size_t>(w.numel())), bv(size_t(b.numel()));
    initWeightAndBias(rng, wv, bv, fanIn);
    w.fromVector(wv);
    b.fromVector(bv);
  };
  auto bn = [&](const Tensor &g, const Tensor &b) {
    std::vector<float> gv(static_cast<size_t>(g.numel())), bv(size_t(b.numel()));
    initBatchNorm(gv, bv);
    g.fromVector(gv);
    b.fromVector(bv);
  };
  layer(w1_, b1_, convFanIn(1, 3, 3));
  bn(g1_, be1_);
  layer(w2_, b2_, convFanIn(kC1, 3, 3));
  bn(g2_, be2_);
  layer(w3_, b3_, linearFanIn(kFc1In));
  layer(w4_, b4_, linearFanIn(kFc1Out));
}

std::vector<TensorSpec> MnistCnn::parameterSpecs() const {
  std::vector<TensorSpec> s;
  for (const Tensor &t : paramList()) s.push_back({t.name(), t.shape()});
  return s;
}

std::vector<NamedTensor> MnistCnn::parameters() const {
  std::vector<NamedTensor> out;
  for (const Tensor &t : paramList()) out.push_back({t.name(), t.shape(), t.toVector<float>()});
  return out;
}

std::vector<NamedTensor> MnistCnn::gradients() const {
  std::vector<NamedTensor> out;
  for (const Tensor &t : gradList()) out.push_back({t.name(), t.shape(), t.toVector<float>()});
  return out;
}

void MnistCnn::setParameters(const std::vector<NamedTensor> &params) {
  std::vector<Tensor> mine = paramList();
  if (params.size() != mine.size())
    throw std::invalid_argument("MnistCnn: " + std::to_string(params.size()) + " parameters given, " +
                                std::to_string(mine.size()) + " expected");
  for (size_t i = 0; i < mine.size(); ++i) {
    if (params[i].name != mine[i].name() || params[i].shape != mine[i].shape())
      throw std::invalid_argument("MnistCnn: parameter " + std::to_string(i) + " is " + params[i].name + " " +
                                  shapeText(params[i].shape) + ", expected " + mine[i].name() + " " +
                                  shapeText(mine[i].shape()));
    mine[i].fromVector(params[i].data);
  }
}

void MnistCnn::setBatch(const float *images, const int32_t *labels, int64_t n) {
  if (n < 1 || n > maxBatch_)
    throw std::invalid_argument("MnistCnn: a batch of " + std::to_string(n) + " images; the plan holds 1.." +
                                std::to_string(maxBatch_));
  checkLabels(labels, n);
  x_.uploadPrefix(images, size_t(n * kImagePixels) * sizeof(float));
  labels_.uploadPrefix(labels, size_t(n) * sizeof(int32_t));
  n_ = n;
}

void MnistCnn::checkLabels(const int32_t *labels, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (labels[i] < 0 || labels[i] >= kClasses)
      throw std::invalid_argument("MnistCnn: label " + std::to_string(labels[i]) + " of image " + std::to_string(i) +
                                  " is outside 0..9");
}

void MnistCnn::enqueueBatch(StepGraph &step, const float *images, const int32_t *labels, int64_t n) {
  if (n < 1 || n > maxBatch_)
    throw std::invalid_argument("MnistCnn: a batch of " + std::to_string(n) + " images; the plan holds 1.." +
                                std::to_string(maxBatch_));
  step.copyIn(x_, images, size_t(n * kImagePixels) * sizeof(float));
  step.copyIn(labels_, labels, size_t(n) * sizeof(int32_t));
  n_ = n;
}

void MnistCnn::enqueueLoss(StepGraph &step, float *dst, CUstream branch) const {
  step.copyOut(dst, lossMean_, sizeof(float), branch);
}

void MnistCnn::forward() {
  if (n_ == 0) throw std::logic_error("MnistCnn::forward: no batch set");
  const int64_t n = n_;
  const tk::ConvPrecision prec = tf32Products_ ? tk::ConvPrecision::Tf32 : tk::ConvPrecision::Exact;
  // The weights' derived copies (they changed at the last SGD step) beside conv1 and bn1: conv2's
  // tap-major, for its forward and data gradient; fc1's transposed ([in, out]), for unit strides
  // in its product.
  CUstream weightCopies = l_.fork();
  tk::ConvWeightTaps::launch(l_, w2_, w2Taps_, kC1, kC2, weightCopies);
  tk::Transpose::launch(l_, w3_, w3T_, kFc1Out, kFc1In, weightCopies);
  tk::ChannelStats st1 = tk::Conv2dForward::launchWithStats(
      l_, x_, w1_, b1_, c1_, stats1_, {.n = n, .cin = 1, .h = kH1, .w = kH1, .cout = kC1, .precision = prec});
  tk::BatchNorm2dForwardSplit::launch(l_, c1_, p1_, arg1_, g1_, be1_, mean1_, rstd1_, st1, bn1Work_, bn1Work_.numel(),
                                      n, kC1, kH1, kH1, kEps, /*relu=*/true, /*pool=*/true);
  l_.join(weightCopies);
  tk::ChannelStats st2 = tk::Conv2dForward::launchWithStats(
      l_, p1_, w2_, b2_, c2_, stats2_,
      {.n = n, .cin = kC1, .h = kH2, .w = kH2, .cout = kC2, .precision = prec, .weightTaps = w2Taps_});
  tk::BatchNorm2dForwardSplit::launch(l_, c2_, p2_, arg2_, g2_, be2_, mean2_, rstd2_, st2, bn2Work_, bn2Work_.numel(),
                                      n, kC2, kH2, kH2, kEps, /*relu=*/true, /*pool=*/true);
  tk::Linear::forwardFromTransposedWeight(l_, p2_, w3T_, b3_, h3_, n, kFc1In, kFc1Out, /*relu=*/true, fcWork_,
                                          fcWork_.numel(), nullptr, tf32Products_);
  // fc2, the loss, and the backward through both and fc1's relu (fc2's gradients, dh3 and
  // fc1's bias gradient) in one pass: at small batches the tail is launches, not work.
  tk::LinearCrossEntropy::launch(l_, h3_, w4_, b4_, labels_, logits_, dlogits_, dh3_, dw4_, db4_, db3_, lossMean_, n,
                                 kFc1Out, kClasses, /*relu=*/true, fcWork_, fcWork_.numel(), dh3T_);
}

void MnistCnn::backward() {
  if (n_ == 0) throw std::logic_error("MnistCnn::backward: no forward");
  const int64_t n = n_;
  const tk::ConvPrecision prec = tf32Products_ ? tk::ConvPrecision::Tf32 : tk::ConvPrecision::Exact;
  // fc2, fc1's relu and fc1's bias: forward() did them (LinearCrossEntropy). fc1's weight
  // gradient on a branch, beside the data gradient's chain:
  CUstream fc1Weight = l_.fork();
  tk::Linear::backwardWeightFromTransposedGradient(l_, dh3T_, p2_, dw3_, n, kFc1In, kFc1Out, fc1WeightWork_,
                                                   fc1WeightWork_.numel(), fc1Weight, tf32Products_);
  tk::Linear::backwardData(l_, dh3_, w3_, dp2_, n, kFc1In, kFc1Out, nullptr, tf32Products_);
  // pool2 + relu + bn2 (dx sum = conv2's bias gradient, on a branch)
  CUstream conv2Bias = nullptr;
  tk::BatchNorm2dBackwardSplit::launch(l_, c2_, dp2_, arg2_, g2_, be2_, mean2_, rstd2_, dc2_, dg2_, dbe2_, db2_,
                                       bn2Work_, bn2Work_.numel(), n, kC2, kH2, kH2, /*relu=*/true, /*pool=*/true,
                                       nullptr, &conv2Bias);
  // conv2: its weight gradient on a branch, beside the data gradient's chain down to conv1.
  CUstream conv2Weight = l_.fork();
  tk::Conv2dBackwardWeight::launch(l_, p1_, dc2_, dw2_, work2_, work2_.numel(),
                                   {.n = n, .cin = kC1, .h = kH2, .w = kH2, .cout = kC2, .precision = prec},
                                   conv2Weight);
  tk::Conv2dBackwardData::launch(
      l_, dc2_, w2_, dp1_,
      {.n = n, .cin = kC1, .h = kH2, .w = kH2, .cout = kC2, .precision = prec, .weightTaps = w2Taps_});
  // pool1 + relu + bn1 (dx sum = conv1's bias gradient, on a branch)
  CUstream conv1Bias = nullptr;
  tk::BatchNorm2dBackwardSplit::launch(l_, c1_, dp1_, arg1_, g1_, be1_, mean1_, rstd1_, dc1_, dg1_, dbe1_, db1_,
                                       bn1Work_, bn1Work_.numel(), n, kC1, kH1, kH1, /*relu=*/true, /*pool=*/true,
                                       nullptr, &conv1Bias);
  // conv1 (no input gradient needed)
  tk::Conv2dBackwardWeight::launch(l_, x_, dc1_, dw1_, work1_, work1_.numel(),
                                   {.n = n, .cin = 1, .h = kH1, .w = kH1, .cout = kC1, .precision = prec});
  for (CUstream branch : {conv1Bias, conv2Weight, conv2Bias, fc1Weight}) l_.join(branch);
}

void MnistCnn::sgdStep(float lr) { tk::SgdUpdate::launch(l_, params_, grads_, lr, params_.numel()); }

float MnistCnn::trainStep(float lr) {
  forward();
  backward();
  sgdStep(lr);
  return loss();
}

float MnistCnn::loss() const {
  float v = 0;
  lossMean_.download(&v);
  return v;
}

std::vector<float> MnistCnn::logits() const {
  std::vector<float> v(static_cast<size_t>(n_ * kClasses));
  logits_.downloadPrefix(v.data(), v.size() * sizeof(float));
  return v;
}

std::vector<int32_t> MnistCnn::predictions() const {
  std::vector<float> z = logits();
  std::vector<int32_t> out(static_cast<size_t>(n_));
  for (int64_t i = 0; i < n_; ++i) {
    const float *row = z.data() + i * kClasses;
    out[size_t(i)] = int32_t(std::max_element(row, row + kClasses) - row);
  }
  return out;
}

} // namespace tile::models
