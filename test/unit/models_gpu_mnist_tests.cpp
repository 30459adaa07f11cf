// The MNIST CNN (tile::models::MnistCnn) on the GPU through the ahead-of-time kernels
// (AotLauncher: runtime-only, for the GPU machine), label `gpu`, skipped without a GPU: every
// parameter gradient of the whole network against the float64 network of
// models_mnist_reference.h (batch 2 and the training batch 64), the SGD step, the same
// seed giving bit-identical losses twice, and the whole training step replayed as one CUDA graph
// against the same step launched kernel by kernel (models_train_step_check.h).
#include "models_mnist_reference.h"
#include "models_train_step_check.h"

#include "tile/kernels/AotLauncher.h"
#include "tile/runtime/Driver.h"

#include <cstring>

using namespace tile::models;
using namespace tile::models::testing;

namespace {

class GpuMnistModel : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why;
    if (!tile::rt::gpuAvailable(&why)) GTEST_SKIP() << "no GPU: " << why;
  }
  tile::kernels::AotLauncher gpu;
};

TEST_F(GpuMnistModel, GradientsOfEveryParameterMatchFloat64) {
  for (int B : {2, 64}) {
    SCOPED_TRACE("batch " + std::to_string(B));
    MnistCnn model(gpu, B);
    ASSERT_TRUE(model.arena().kind() == MemoryKind::Device);
    model.init(7);
    std::vector<float> img;
    std::vector<int32_t> lab;
    syntheticBatch(3, B, img, lab);
    checkGradients(model, B, img, lab, /*differences=*/B == 2);
    std::vector<NamedTensor> before = model.parameters(), grads = model.gradients();
    model.sgdStep(0.5f);
    std::vector<NamedTensor> after = model.parameters();
    for (size_t i = 0; i < before.size(); ++i)
      for (size_t k = 0; k < before[i].data.size(); ++k)
        ASSERT_EQ(after[i].data[k], before[i].data[k] - 0.5f * grads[i].data[k]) << before[i].name << "[" << k << "]";
  }
}

TEST_F(GpuMnistModel, SameSeedGivesBitIdenticalLosses) {
  auto run = [&] {
    MnistCnn model(gpu, 32);
    model.init(42);
    std::vector<float> losses, img;
    std::vector<int32_t> lab;
    for (int s = 0; s < 4; ++s) {
      syntheticBatch(100 + uint64_t(s), 32, img, lab);
      model.setBatch(img.data(), lab.data(), 32);
      losses.push_back(model.trainStep(0.01f));
    }
    return losses;
  };
  std::vector<float> a = run(), b = run();
  for (size_t i = 0; i < a.size(); ++i) {
    uint32_t x, y;
    std::memcpy(&x, &a[i], 4), std::memcpy(&y, &b[i], 4);
    EXPECT_EQ(x, y) << "step " << i << ": " << a[i] << " vs " << b[i];
  }
}

// Batch copy from pinned memory, forward, backward and SGD update as one CUDA graph, replayed;
// 32 is the ragged last batch of an MNIST epoch at batch 64: captured anew (the graph updated in
// place or re-instantiated), then 64 again.
TEST_F(GpuMnistModel, GraphReplayedStepMatchesUngraphedAndRecapturesWhenTheBatchSizeChanges) {
  checkGraphedStepMatchesUngraphed(gpu, 64, {64, 64, 64, 32, 32, 64, 64});
}

TEST_F(GpuMnistModel, GraphedStepAtBatch1024MatchesUngraphed) {
  checkGraphedStepMatchesUngraphed(gpu, 1024, {1024, 1024, 1024});
}

} // namespace
