// The MNIST CNN (models/: tile::models::MnistCnn) on the CPU executor:
//   - the tensor layer's static memory plan;
//   - every parameter gradient of the whole network on a batch of 2 against the same network
//     written plainly here in float64 (itself checked by central finite differences);
//   - a few SGD steps on the real MNIST training set lower the loss (skipped without .data/mnist);
//   - the same seed gives bit-identical losses and parameters twice.
#include "tile/kernels/DslLauncher.h"
#include "tile/models/Idx.h"
#include "tile/models/Init.h"
#include "tile/models/MnistCnn.h"
#include "tile/models/Train.h"
#include "models_mnist_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <vector>

using namespace tile::models;
using namespace tile::models::testing;
namespace tk = tile::kernels;

namespace {

std::string mnistDir() { return std::string(TILE_SOURCE_DIR) + "/.data/mnist"; }
bool haveMnist() {
  return std::filesystem::exists(mnistDir() + "/train-images-idx3-ubyte") &&
         std::filesystem::exists(mnistDir() + "/train-labels-idx1-ubyte");
}

class CpuMnistModel : public ::testing::Test {
protected:
  tk::DslLauncher cpu{tile::Executor::CPU};
};

// ---------------------------------------------------------------------------------------

TEST_F(CpuMnistModel, MemoryPlanIsAlignedAndSpansLineUp) {
  Arena a(MemoryKind::Host);
  Tensor p0 = a.add("p0", {3, 3}), p1 = a.add("p1", {5}), i8 = a.add("i8", {7}, ElemType::I8);
  Tensor g0 = a.add("g0", {3, 3}), g1 = a.add("g1", {5});
  Tensor ps = a.span("p", p0, p1), gs = a.span("g", g0, g1);
  EXPECT_THROW(a.span("bad", p1, i8), std::logic_error);
  a.allocate();
  EXPECT_THROW(a.add("late", {1}), std::logic_error);
  for (const Tensor &t : {p0, p1, i8, g0, g1}) EXPECT_EQ(t.ptr() % Arena::kAlign, 0u) << t.name();
  EXPECT_EQ(ps.numel(), gs.numel());
  EXPECT_EQ(p1.ptr() - p0.ptr(), g1.ptr() - g0.ptr());
  std::vector<float> zeros(size_t(ps.numel()), 0.0f);
  EXPECT_EQ(ps.toVector<float>(), zeros) << "the block is zero-filled";
  p1.fromVector(std::vector<float>{1, 2, 3, 4, 5});
  EXPECT_EQ(p1.host<float>()[4], 5.0f);
  EXPECT_THROW(p1.fromVector(std::vector<float>{1, 2}), std::logic_error);
  EXPECT_THROW(i8.toVector<float>(), std::logic_error);

  MnistCnn model(cpu, 4);
  EXPECT_TRUE(model.arena().kind() == MemoryKind::Host);
  std::vector<float> img;
  std::vector<int32_t> lab;
  syntheticBatch(1, 5, img, lab);
  EXPECT_THROW(model.setBatch(img.data(), lab.data(), 5), std::invalid_argument) << "more than the plan holds";
  lab[0] = 10;
  EXPECT_THROW(model.setBatch(img.data(), lab.data(), 2), std::invalid_argument) << "label out of range";
}

TEST_F(CpuMnistModel, GradientsOfEveryParameterMatchFloat64) {
  constexpr int B = 2;
  MnistCnn model(cpu, B);
  model.init(7);
  std::vector<float> img;
  std::vector<int32_t> lab;
  syntheticBatch(3, B, img, lab);
  checkGradients(model, B, img, lab, /*differences=*/true);

  // The SGD step: p - lr * g over every parameter.
  std::vector<NamedTensor> before = model.parameters(), grads = model.gradients();
  model.sgdStep(0.5f);
  std::vector<NamedTensor> after = model.parameters();
  for (size_t i = 0; i < before.size(); ++i)
    for (size_t k = 0; k < before[i].data.size(); ++k)
      ASSERT_EQ(after[i].data[k], before[i].data[k] - 0.5f * grads[i].data[k]) << before[i].name << "[" << k << "]";
}

// The ragged last batch: a plan for 5 images runs a batch of 3 like a plan for 3.
TEST_F(CpuMnistModel, SmallerBatchThanThePlan) {
  std::vector<float> img;
  std::vector<int32_t> lab;
  syntheticBatch(9, 3, img, lab);
  MnistCnn a(cpu, 5), b(cpu, 3);
  a.init(1), b.init(1);
  a.setBatch(img.data(), lab.data(), 3), b.setBatch(img.data(), lab.data(), 3);
  a.forward(), b.forward();
  a.backward(), b.backward();
  EXPECT_EQ(a.loss(), b.loss());
  std::vector<NamedTensor> ga = a.gradients(), gb = b.gradients();
  for (size_t i = 0; i < ga.size(); ++i) EXPECT_EQ(ga[i].data, gb[i].data) << ga[i].name;
}

std::vector<float> trainLosses(tk::Launcher &l, const Dataset &ds, uint64_t seed, int steps, int64_t batch,
                               std::vector<NamedTensor> *params = nullptr) {
  MnistCnn model(l, batch);
  model.init(seed);
  std::vector<int64_t> order = shuffledIndices(ds.size, seed, 0);
  std::vector<float> img(size_t(batch * kImagePixels)), losses;
  std::vector<int32_t> lab(static_cast<size_t>(batch));
  for (int s = 0; s < steps; ++s) {
    gatherBatch(ds, std::span<const int64_t>(order.data() + s * batch, size_t(batch)), img, lab);
    model.setBatch(img.data(), lab.data(), batch);
    losses.push_back(model.trainStep(0.01f));
  }
  if (params) *params = model.parameters();
  return losses;
}

Dataset syntheticDataset(int64_t n) {
  Dataset ds;
  ds.size = n;
  Rng rng(5);
  ds.images.resize(size_t(n * kImagePixels));
  for (uint8_t &p : ds.images) p = rng.uniform() < 0.2f ? uint8_t(rng.below(256)) : 0;
  ds.labels.resize(size_t(n));
  for (uint8_t &l : ds.labels) l = uint8_t(rng.below(10));
  return ds;
}

TEST_F(CpuMnistModel, SameSeedGivesBitIdenticalLosses) {
  const Dataset ds = haveMnist() ? loadDataset(mnistDir(), "train") : syntheticDataset(256);
  std::vector<NamedTensor> pa, pb;
  std::vector<float> a = trainLosses(cpu, ds, 42, 4, 32, &pa), b = trainLosses(cpu, ds, 42, 4, 32, &pb);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    uint32_t x, y;
    std::memcpy(&x, &a[i], 4), std::memcpy(&y, &b[i], 4);
    EXPECT_EQ(x, y) << "step " << i << ": " << a[i] << " vs " << b[i];
  }
  for (size_t i = 0; i < pa.size(); ++i) EXPECT_EQ(pa[i].data, pb[i].data) << pa[i].name;
  std::vector<float> c = trainLosses(cpu, ds, 43, 1, 32);
  EXPECT_NE(a[0], c[0]) << "another seed, another initialisation";
}

// A few SGD steps (lr 0.01, batch 64) on the real training set lower the loss, measured on a
// fixed batch of held-out test images before and after, and along the training curve.
TEST_F(CpuMnistModel, TrainingOnMnistLowersTheLoss) {
  if (!haveMnist()) GTEST_SKIP() << "no MNIST under " << mnistDir() << " (scripts/setup.sh fetches it)";
  const Dataset train = loadDataset(mnistDir(), "train"), test = loadDataset(mnistDir(), "test");
  constexpr int64_t B = 64;
  constexpr int kSteps = 30;
  MnistCnn model(cpu, B);
  model.init(0);
  std::vector<float> img(size_t(B * kImagePixels)), held(size_t(B * kImagePixels));
  std::vector<int32_t> lab(static_cast<size_t>(B)), heldLab(static_cast<size_t>(B));
  std::vector<int64_t> heldIdx(B);
  for (int64_t i = 0; i < B; ++i) heldIdx[size_t(i)] = i;
  gatherBatch(test, heldIdx, held, heldLab);
  auto heldLoss = [&] {
    model.setBatch(held.data(), heldLab.data(), B);
    model.forward();
    return model.loss();
  };
  const float before = heldLoss();
  std::vector<int64_t> order = shuffledIndices(train.size, 0, 0);
  std::vector<float> losses;
  for (int s = 0; s < kSteps; ++s) {
    gatherBatch(train, std::span<const int64_t>(order.data() + s * B, size_t(B)), img, lab);
    model.setBatch(img.data(), lab.data(), B);
    losses.push_back(model.trainStep(0.01f));
    ASSERT_TRUE(std::isfinite(losses.back())) << "step " << s;
  }
  const float after = heldLoss();
  double first = 0, last = 0;
  for (int i = 0; i < 5; ++i) first += losses[size_t(i)] / 5, last += losses[size_t(kSteps - 5 + i)] / 5;
  std::printf("    held-out loss %.4f -> %.4f; training loss, first 5 steps %.4f, last 5 %.4f\n", before, after, first,
              last);
  EXPECT_LT(after, 0.8 * before);
  EXPECT_LT(last, first);
}

// The same at the training batch size (64 images: the convolutions' split-K weight
// gradients and the batchnorm's partial statistics over many tiles), on real digits when
// there are.
TEST_F(CpuMnistModel, GradientsAtTheTrainingBatchMatchFloat64) {
  constexpr int B = 64;
  MnistCnn model(cpu, B);
  model.init(11);
  std::vector<float> img(size_t(B * kImagePixels));
  std::vector<int32_t> lab(static_cast<size_t>(B));
  if (haveMnist()) {
    const Dataset test = loadDataset(mnistDir(), "test");
    std::vector<int64_t> idx(B);
    for (int64_t i = 0; i < B; ++i) idx[size_t(i)] = 100 + 7 * i;
    gatherBatch(test, idx, img, lab);
  } else {
    syntheticBatch(4, B, img, lab);
  }
  checkGradients(model, B, img, lab, /*differences=*/false);
}

} // namespace
