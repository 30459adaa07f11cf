// CUDA graph API (tile/runtime/Graph.h) without a GPU: the caller's mistakes are reported before
// the driver is asked, and every driver call says in one line that there is no usable GPU.
// The graphs themselves run in test/gpu/runtime_gpu_tests.cpp (label gpu).
#include "tile/runtime/Driver.h"
#include "tile/runtime/Error.h"
#include "tile/runtime/Graph.h"

#include <gtest/gtest.h>

#include <string>

using namespace tile::rt;

namespace {
template <class F> std::string errorOf(F &&f) {
  try {
    f();
  } catch (const Error &e) { return e.what(); }
  return "(no error)";
}
bool contains(const std::string &s, const std::string &sub) { return s.find(sub) != std::string::npos; }
// Any non-null handle: the calls below must fail before the driver could look at it.
CUstream someStream() { return reinterpret_cast<CUstream>(uintptr_t(0x1000)); }
} // namespace

TEST(RuntimeGraph, CapturingTheLegacyDefaultStreamIsRefused) {
  std::string e = errorOf([] { StreamCapture capture(nullptr); });
  EXPECT_TRUE(contains(e, "cannot capture the legacy default stream")) << e;
  EXPECT_TRUE(contains(e, "rt::Stream")) << e;
}

TEST(RuntimeGraph, EmptyGraphsAndExecsAreRefusedWithTheReason) {
  Graph none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.nodeCount(), 0u);
  std::string e = errorOf([&] { GraphExec exec(none); });
  EXPECT_TRUE(contains(e, "nothing to instantiate")) << e;
  GraphExec exec;
  EXPECT_TRUE(exec.empty());
  e = errorOf([&] { exec.launch(someStream()); });
  EXPECT_TRUE(contains(e, "nothing instantiated")) << e;
  e = errorOf([&] { exec.update(none); });
  EXPECT_TRUE(contains(e, "empty Graph")) << e;
  // Moving empty objects around needs no driver either.
  GraphExec moved(std::move(exec));
  Graph movedGraph(std::move(none));
  EXPECT_TRUE(moved.empty());
  EXPECT_TRUE(movedGraph.empty());
}

TEST(RuntimeGraph, WithoutAGpuEveryDriverCallSaysSoInOneLine) {
  if (gpuAvailable()) GTEST_SKIP() << "a GPU is present; no-GPU path not testable";
  for (std::string e :
       {errorOf([] { StreamCapture capture(someStream()); }), errorOf([] { (void)isCapturing(someStream()); })}) {
    EXPECT_TRUE(contains(e, "no usable GPU")) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}
