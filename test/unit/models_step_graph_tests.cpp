// The step graph's capture/replay logic (StepGraph, TrainStep) and the per-kernel profile
// (KernelProfiler, kernelTimeTable) over a fake launcher that records what reaches it: no
// compiler, no GPU. The same logic over the real CPU executor: cpu_mnist_graph_tests.cpp; on the
// GPU (CUDA graphs): models_gpu_mnist_tests.cpp.
#include "models_test_util.h"
#include "tile/models/KernelProfiler.h"
#include "tile/models/MnistCnn.h"
#include "tile/models/ProfileTable.h"
#include "tile/models/StepGraph.h"
#include "tile/models/TrainStep.h"

#include <cstring>
#include <functional>
#include <stdexcept>
#include <vector>

using namespace tile;
using namespace tile::models;
using namespace tile::models::testing;

namespace {

// One launch as the fake launcher saw it: each non-Const argument's bytes, widened to 8.
struct Call {
  std::string kernel;
  Specialization spec;
  rt::Dim3 grid;
  std::vector<uint64_t> args;
  CUstream stream;
};

// Runs nothing; remembers every launch with its argument values read through `params` the way
// an executor reads them (so a dangling or misaligned pointer shows up under sanitizers).
class FakeLauncher : public kernels::Launcher {
public:
  void launch(const char *kernelName, const Specialization &spec, rt::Dim3 grid, void **params,
              CUstream stream) override {
    Call c{kernelName, spec, grid, {}, stream};
    size_t k = 0;
    for (const ArgSpec &a : spec.args) {
      uint64_t v = 0;
      switch (a.kind) {
      case ArgKind::Const: continue;
      case ArgKind::Ptr:
      case ArgKind::I64: v = uint64_t(*static_cast<int64_t *>(params[k])); break;
      case ArgKind::I32: v = uint64_t(uint32_t(*static_cast<int32_t *>(params[k]))); break;
      case ArgKind::F32: {
        uint32_t b;
        std::memcpy(&b, params[k], 4);
        v = b;
        break;
      }
      case ArgKind::F16:
      case ArgKind::BF16: v = *static_cast<uint16_t *>(params[k]); break;
      case ArgKind::I1: v = *static_cast<uint8_t *>(params[k]); break;
      }
      c.args.push_back(v);
      ++k;
    }
    calls.push_back(std::move(c));
  }
  bool hostMemory() const override { return true; }
  std::vector<Call> calls;
};

// A launch of every argument kind (a Const in the middle takes no slot in params).
struct Args {
  uint64_t ptr = 0x1000;
  int32_t n = 5;
  float x = 1.5f;
  uint8_t flag = 1;
  int64_t big = int64_t(1) << 40;
  uint16_t half = 0x3c00;
};
void launchAllKinds(kernels::Launcher &l, const Args &a) {
  Specialization spec;
  for (ArgKind k : {ArgKind::Ptr, ArgKind::I32, ArgKind::Const, ArgKind::F32, ArgKind::I1, ArgKind::I64, ArgKind::F16})
    spec.args.push_back({k, k == ArgKind::Const ? 128 : 0, false, false});
  Args copy = a;
  void *params[] = {&copy.ptr, &copy.n, &copy.x, &copy.flag, &copy.big, &copy.half};
  l.launch("all_kinds", spec, {3, 2, 1}, params, nullptr);
}
std::vector<uint64_t> expectedArgs(const Args &a) {
  uint32_t x;
  std::memcpy(&x, &a.x, 4);
  return {a.ptr, uint64_t(uint32_t(a.n)), x, a.flag, uint64_t(a.big), a.half};
}

} // namespace

TEST(StepGraph, PassesLaunchesThroughWhenNotCapturing) {
  FakeLauncher fake;
  StepGraph g(fake);
  EXPECT_TRUE(g.hostMemory());
  EXPECT_EQ(g.stream(), nullptr) << "the CPU executor has no stream";
  launchAllKinds(g, {});
  ASSERT_EQ(fake.calls.size(), 1u);
  EXPECT_EQ(fake.calls[0].kernel, "all_kinds");
  EXPECT_EQ(fake.calls[0].args, expectedArgs({}));
  EXPECT_EQ(fake.calls[0].grid.x, 3u);
  EXPECT_EQ(g.captures(), 0);
}

TEST(StepGraph, FirstRunOfAShapeRunsDirectlyAndCapturesLaterRunsReplayFrozenArguments) {
  FakeLauncher fake;
  StepGraph g(fake);
  Args a;
  int bodies = 0;
  auto body = [&] {
    ++bodies;
    launchAllKinds(g, a);
  };
  EXPECT_TRUE(g.run(1, body));
  EXPECT_EQ(bodies, 2) << "run directly once, then once more while recording";
  EXPECT_EQ(fake.calls.size(), 1u) << "recording launches nothing";
  EXPECT_EQ(g.captures(), 1);
  EXPECT_EQ(g.nodes(), 1u);
  EXPECT_EQ(g.lastCapture(), "recorded");

  Args before = a;
  a.n = 99, a.x = -2.0f, a.ptr = 0x2000, a.big = 7, a.flag = 0, a.half = 0xbc00;
  EXPECT_FALSE(g.run(1, body));
  EXPECT_EQ(bodies, 2) << "a replay does not run the body";
  ASSERT_EQ(fake.calls.size(), 2u);
  EXPECT_EQ(fake.calls[1].args, expectedArgs(before)) << "the values at capture, as a CUDA graph replays them";
  EXPECT_EQ(fake.calls[1].spec, fake.calls[0].spec);
  EXPECT_EQ(fake.calls[1].grid.y, 2u);

  EXPECT_TRUE(g.run(2, body)) << "another shape captures again";
  EXPECT_EQ(g.captures(), 2);
  EXPECT_FALSE(g.run(2, body));
  ASSERT_EQ(fake.calls.size(), 4u);
  EXPECT_EQ(fake.calls[2].args, expectedArgs(a));
  EXPECT_EQ(fake.calls[3].args, expectedArgs(a));
}

TEST(StepGraph, CopiesReplayFromTheSameAddressesWithTheirContentAtReplay) {
  FakeLauncher fake;
  StepGraph g(fake);
  Arena arena(MemoryKind::Host);
  Tensor t = arena.add("t", {4});
  arena.allocate();
  float src[4] = {1, 2, 3, 4}, dst[2] = {0, 0};
  auto body = [&] {
    g.copyIn(t, src, sizeof src);
    g.copyOut(dst, t, sizeof dst);
  };
  g.run(7, body);
  EXPECT_EQ(g.nodes(), 2u);
  EXPECT_EQ(t.toVector<float>(), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(dst[1], 2.0f);
  src[0] = 10, src[1] = 20;
  g.run(7, body);
  EXPECT_EQ(t.toVector<float>(), (std::vector<float>{10, 20, 3, 4}));
  EXPECT_EQ(dst[0], 10.0f);
  EXPECT_EQ(dst[1], 20.0f);
  EXPECT_THROW(g.copyIn(t, src, 5 * sizeof(float)), std::logic_error);
  EXPECT_THROW(g.copyOut(dst, Tensor(), 4), std::logic_error);
}

TEST(StepGraph, AFailedCaptureLeavesNothingStaleToReplay) {
  FakeLauncher fake;
  StepGraph g(fake);
  Args a;
  int calls = 0;
  auto failsWhileRecording = [&] {
    if (++calls == 2) throw std::runtime_error("not capturable");
    launchAllKinds(g, a);
  };
  g.run(1, [&] { launchAllKinds(g, a); });
  EXPECT_THROW(g.run(2, failsWhileRecording), std::runtime_error);
  EXPECT_EQ(g.captures(), 1);
  EXPECT_EQ(g.nodes(), 0u);
  const size_t before = fake.calls.size();
  a.n = 42;
  EXPECT_TRUE(g.run(1, [&] { launchAllKinds(g, a); })) << "the shape-1 capture was dropped: captured anew";
  EXPECT_EQ(fake.calls.size(), before + 1);
  EXPECT_EQ(fake.calls.back().args[1], 42u);
  g.reset();
  EXPECT_TRUE(g.run(1, [&] { launchAllKinds(g, a); }));
}

TEST(TrainStep, ReplaysTheWholeStepAndRecapturesWhenTheBatchSizeOrRateChanges) {
  FakeLauncher fake;
  StepGraph g(fake), other(fake);
  MnistCnn model(g, 4);
  EXPECT_THROW(TrainStep(model, other), std::logic_error) << "the model must launch through the graph";
  TrainStep step(model, g);
  ASSERT_EQ(step.images().size(), size_t(4 * 784));
  ASSERT_EQ(step.labels().size(), 4u);
  for (int32_t &l : step.labels()) l = 3;

  step.run(4, 0.1f);
  const size_t perStep = fake.calls.size();
  EXPECT_GT(perStep, 10u) << "forward, backward and the update";
  EXPECT_EQ(g.nodes(), perStep + 3) << "the launches, two batch copies and the loss copy";
  step.run(4, 0.1f);
  ASSERT_EQ(fake.calls.size(), 2 * perStep);
  for (size_t i = 0; i < perStep; ++i) {
    EXPECT_EQ(fake.calls[perStep + i].kernel, fake.calls[i].kernel);
    EXPECT_EQ(fake.calls[perStep + i].args, fake.calls[i].args) << fake.calls[i].kernel;
  }
  EXPECT_EQ(g.captures(), 1);
  step.run(2, 0.1f);
  EXPECT_EQ(g.captures(), 2) << "batch size changed";
  step.run(2, 0.2f);
  EXPECT_EQ(g.captures(), 3) << "learning rate changed";
  step.run(2, 0.2f);
  EXPECT_EQ(g.captures(), 3);

  step.labels()[1] = 10;
  EXPECT_CONTAINS(messageOf<std::invalid_argument>([&] { step.run(2, 0.2f); }), "label 10 of image 1");
  step.labels()[1] = 3;
  EXPECT_THROW(step.run(5, 0.2f), std::invalid_argument);
  EXPECT_THROW(step.run(0, 0.2f), std::invalid_argument);

  const size_t beforeUngraphed = fake.calls.size();
  step.runUngraphed(2, 0.2f);
  EXPECT_EQ(fake.calls.size(), beforeUngraphed + perStep);
  EXPECT_EQ(g.captures(), 3);
}

TEST(TrainStep, UngraphedNeverCaptures) {
  FakeLauncher fake;
  StepGraph g(fake);
  MnistCnn model(g, 2);
  TrainStep step(model, g, /*graphed=*/false);
  for (int32_t &l : step.labels()) l = 1;
  step.run(2, 0.1f);
  const size_t perStep = fake.calls.size();
  step.run(2, 0.1f);
  EXPECT_EQ(fake.calls.size(), 2 * perStep);
  EXPECT_EQ(g.captures(), 0);
}

TEST(KernelProfiler, TimesOnlyTheLaunchesBetweenStartAndStop) {
  FakeLauncher fake;
  KernelProfiler p(fake);
  launchAllKinds(p, {});
  p.start();
  EXPECT_TRUE(p.recording());
  launchAllKinds(p, {});
  launchAllKinds(p, {});
  p.stop();
  launchAllKinds(p, {});
  EXPECT_EQ(fake.calls.size(), 4u) << "every launch still reaches the launcher";
  std::vector<KernelTime> t = p.times();
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].kernel, "all_kinds");
  EXPECT_EQ(t[0].grid[0], 3u);
  EXPECT_EQ(t[0].grid[1], 2u);
  EXPECT_GE(t[0].ms, 0.0);
  p.start();
  EXPECT_TRUE(p.times().empty()) << "start() forgets the last profile";
}

// Launches timed one by one must not overlap: while timing, the profiler (and a StepGraph in
// front of it) has no branches.
TEST(KernelProfiler, SerializesLaunchesOnlyWhileTiming) {
  FakeLauncher fake;
  KernelProfiler p(fake);
  StepGraph g(p);
  EXPECT_FALSE(p.serializesLaunches());
  EXPECT_FALSE(g.serializesLaunches());
  p.start();
  EXPECT_TRUE(p.serializesLaunches());
  EXPECT_TRUE(g.serializesLaunches());
  EXPECT_EQ(g.fork(), nullptr);
  p.stop();
  EXPECT_FALSE(g.serializesLaunches());
}

// On the CPU executor (synchronous launches) a branch is the step's one line, recorded and
// replayed in program order.
TEST(StepGraph, BranchesAreTheOneLineOnTheCpuExecutor) {
  FakeLauncher fake;
  StepGraph g(fake);
  Arena arena(MemoryKind::Host);
  Tensor t = arena.add("t", {1});
  arena.allocate();
  t.fromVector(std::vector<float>{1.5f});
  std::vector<float> to{0.f};
  auto body = [&] {
    launchAllKinds(g, {});
    CUstream b = g.fork();
    EXPECT_EQ(b, nullptr);
    g.copyOut(to.data(), t, 4, b);
    g.join(b);
    launchAllKinds(g, {});
  };
  EXPECT_TRUE(g.run(1, body));
  EXPECT_FALSE(g.run(1, body));
  EXPECT_EQ(g.nodes(), 3u);
  EXPECT_EQ(fake.calls.size(), 4u);
  EXPECT_EQ(to[0], 1.5f);
}

TEST(KernelTimeTable, RowsInLaunchOrderThenTheSumThenByKernel) {
  std::vector<KernelTime> launches = {
      {"conv", {98, 1, 1}, 0.5}, {"pool", {16, 2, 1}, 0.25}, {"conv", {49, 2, 1}, 1.25}};
  std::string t = kernelTimeTable(launches, "profile of one step");
  EXPECT_EQ(t.rfind("profile of one step\n", 0), 0u) << t;
  EXPECT_CONTAINS(t, "98 ");
  EXPECT_CONTAINS(t, "16x2");
  EXPECT_CONTAINS(t, "0.5000");
  EXPECT_CONTAINS(t, "sum");
  EXPECT_CONTAINS(t, "2.0000"); // 0.5 + 0.25 + 1.25
  EXPECT_CONTAINS(t, "62.5%");  // 1.25 of 2
  EXPECT_CONTAINS(t, "by kernel");
  // conv first by its total (1.75 ms over 2 launches, 87.5%), pool after.
  const size_t byKernel = t.find("by kernel");
  const size_t conv = t.find("conv", byKernel), pool = t.find("pool", byKernel);
  ASSERT_NE(conv, std::string::npos);
  ASSERT_NE(pool, std::string::npos);
  EXPECT_LT(conv, pool);
  EXPECT_CONTAINS(t.substr(byKernel), "87.5%");
  // In launch order: conv, pool, conv.
  EXPECT_LT(t.find("conv"), t.find("pool"));
  EXPECT_NE(t.find("conv", t.find("pool")), std::string::npos);
  EXPECT_EQ(t.back(), '\n');
  EXPECT_CONTAINS(kernelTimeTable({}, "empty"), "sum");
}
