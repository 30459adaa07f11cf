// The MNIST CNN (tile::models::MnistCnn) on the GPU through the ahead-of-time kernels
// (AotLauncher: runtime-only, for the GPU machine), label `gpu`, skipped without a GPU: every
// parameter gradient of the whole network against the float64 network of
// models_mnist_reference.h (batch 2 and the training batch 64), the SGD step, the same
// seed giving bit-identical losses twice, and the whole training step replayed as one CUDA graph
// against the same step launched kernel by kernel (models_train_step_check.h).
#include "models_mnist_reference.h"
#include "models_train_step_check.h"

#include "tile/kernels/AotLauncher.h"
#include "tile/kernels/Elementwise.h"
#include "tile/kernels/Relu.h"
#include "tile/kernels/Sgd.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Memory.h"

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

// StepGraph's branches on their own: z = x + y; on a branch r = relu(z) beside q = x + x on the
// step's line; joined, p -= 0.5 r. Run directly (overlapping streams) and replayed as a graph,
// each must give what the same launches give one after another, bit for bit: a fork that did
// not wait for z, or a join that did not wait for r, reads unwritten memory (poisoned NaN).
TEST_F(GpuMnistModel, StepBranchesStartAfterTheForkAndFinishBeforeTheJoin) {
  namespace tk = tile::kernels;
  using tile::rt::DeviceBuffer;
  const int64_t n = int64_t(1) << 22; // long enough kernels for a missing wait to show
  const size_t count = static_cast<size_t>(n);
  std::vector<float> x(count), y(count), p0(count);
  uint32_t state = 7;
  auto next = [&] { return float((state = state * 1664525u + 1013904223u) >> 8) / float(1 << 24) - 0.5f; };
  for (int64_t i = 0; i < n; ++i) x[size_t(i)] = next(), y[size_t(i)] = next(), p0[size_t(i)] = next();
  DeviceBuffer X = DeviceBuffer::fromHost(x), Y = DeviceBuffer::fromHost(y), P(size_t(n) * 4), Z(size_t(n) * 4),
               R(size_t(n) * 4), Q(size_t(n) * 4);
  auto poison = [&] {
    P.copyFromHost(p0.data(), size_t(n) * 4);
    for (DeviceBuffer *b : {&Z, &R, &Q}) b->fillBytes(0xFF);
  };
  auto step = [&](tile::kernels::Launcher &l) {
    tk::VectorAdd::launch(l, X.ptr(), Y.ptr(), Z.ptr(), n);
    CUstream branch = l.fork();
    tk::ReluForward::launch(l, Z.ptr(), R.ptr(), n, branch);
    tk::VectorAdd::launch(l, X.ptr(), X.ptr(), Q.ptr(), n);
    l.join(branch);
    tk::SgdUpdate::launch(l, P.ptr(), R.ptr(), 0.5f, n);
  };
  auto result = [&] { return std::vector<std::vector<float>>{P.toHost<float>(size_t(n)), Q.toHost<float>(size_t(n))}; };

  poison();
  step(gpu); // in order (the AotLauncher has no branches)
  step(gpu);
  const auto inOrder = result();

  StepGraph direct(gpu);
  EXPECT_NE(direct.fork(), nullptr) << "on the GPU a fork is a stream of the step's own";
  direct.reset(); // closes that branch
  poison();
  step(direct);
  step(direct);
  direct.synchronize();
  EXPECT_TRUE(result() == inOrder) << "directly, with the branch on its own stream";

  StepGraph graph(gpu);
  poison();
  EXPECT_TRUE(graph.run(1, [&] { step(graph); })); // runs directly, then captures
  EXPECT_EQ(graph.nodes(), 4u) << "fork and join are edges of the graph, not nodes";
  poison();
  EXPECT_FALSE(graph.run(1, [&] { step(graph); })); // replays
  EXPECT_FALSE(graph.run(1, [&] { step(graph); }));
  graph.synchronize();
  EXPECT_TRUE(result() == inOrder) << "replayed twice";

  // A branch left open: refused in one line, and nothing stale replays afterwards.
  try {
    graph.run(2, [&] { tk::ReluForward::launch(graph, Z.ptr(), R.ptr(), n, graph.fork()); });
    ADD_FAILURE() << "an unjoined branch was accepted";
  } catch (const std::logic_error &e) {
    EXPECT_NE(std::string(e.what()).find("not joined"), std::string::npos) << e.what();
  }
  poison();
  EXPECT_TRUE(graph.run(1, [&] { step(graph); })) << "captured again after the failure";
  EXPECT_FALSE(graph.run(1, [&] { step(graph); }));
  graph.synchronize();
  EXPECT_TRUE(result() == inOrder) << "after a refused step";
}

} // namespace
