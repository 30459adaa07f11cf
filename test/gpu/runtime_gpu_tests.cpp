// Runtime tests on a real GPU (ctest label `gpu`). Each skips with the reason when there is none.
// No kernel is launched here: kernels come only from the compiler (hand-written PTX kernels are not
// allowed), so these cover memory, copies, events, and the module/launch error paths.
#include "tile/runtime/Context.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Error.h"
#include "tile/runtime/Launch.h"
#include "tile/runtime/Memory.h"
#include "tile/runtime/Module.h"
#include "tile/runtime/ModuleCache.h"
#include "tile/runtime/Stream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>

using namespace tile::rt;

#define REQUIRE_GPU()                                \
  do {                                               \
    std::string why_;                                \
    if (!gpuAvailable(&why_)) GTEST_SKIP() << why_;  \
  } while (0)

namespace {
bool contains(const std::string &s, const std::string &sub) { return s.find(sub) != std::string::npos; }
} // namespace

TEST(RuntimeGpu, DeviceInfo) {
  REQUIRE_GPU();
  EXPECT_GE(driverVersion(), 12000);
  EXPECT_GE(deviceCount(), 1);
  const DeviceInfo &d = Context::get().info();
  EXPECT_EQ(d.ordinal, 0);
  EXPECT_FALSE(d.name.empty());
  EXPECT_GE(d.ccMajor, 7);
  EXPECT_GT(d.smCount, 0);
  EXPECT_GT(d.totalMem, size_t(1) << 30);
  EXPECT_GE(d.maxSharedPerBlock, 48 * 1024);
  EXPECT_NE(Context::get().handle(), nullptr);
  Context::get().synchronize();
  printf("device: %s sm_%d%d, %d SMs, %zu MiB, %d B smem/block, driver %d\n", d.name.c_str(), d.ccMajor, d.ccMinor,
         d.smCount, d.totalMem >> 20, d.maxSharedPerBlock, driverVersion());
}

TEST(RuntimeGpu, BadOrdinalThrows) {
  REQUIRE_GPU();
  try {
    Context::get(deviceCount() + 3);
    FAIL();
  } catch (const Error &e) {
    EXPECT_TRUE(contains(e.what(), "out of range")) << e.what();
  }
}

TEST(RuntimeGpu, PoisonAndRoundTrip) {
  REQUIRE_GPU();
  std::vector<float> host(1 << 20);
  std::iota(host.begin(), host.end(), 0.5f);
  DeviceBuffer buf = DeviceBuffer::fromHost(host);
  EXPECT_NE(buf.ptr(), 0u);
  EXPECT_EQ(buf.bytes(), host.size() * sizeof(float));
  EXPECT_EQ(buf.toHost<float>(host.size()), host);

  buf.fillBytes(0xFF);  // all-ones floats are NaN: a poisoned output can never pass a check
  auto poisoned = buf.toHost<uint32_t>(host.size());
  for (uint32_t v : poisoned) ASSERT_EQ(v, 0xFFFFFFFFu);

  DeviceBuffer moved = std::move(buf);
  EXPECT_EQ(buf.ptr(), 0u);
  EXPECT_THROW(moved.copyToHost(host.data(), moved.bytes() + 1), Error);
  EXPECT_THROW(moved.copyFromHost(host.data(), moved.bytes() + 4), Error);
}

TEST(RuntimeGpu, PinnedAsyncCopiesOnStream) {
  REQUIRE_GPU();
  const size_t n = 1 << 22;
  PinnedHostBuffer in(n), out(n);
  for (size_t i = 0; i < n; ++i) in.as<uint8_t>()[i] = uint8_t(i * 7);
  std::memset(out.data(), 0, n);
  Stream s;
  DeviceBuffer d(n);
  d.copyFromHost(in.data(), n, s.handle());
  d.copyToHost(out.data(), n, s.handle());
  s.synchronize();
  EXPECT_EQ(std::memcmp(in.data(), out.data(), n), 0);
}

TEST(RuntimeGpu, EventsTimeDeviceToDeviceCopy) {
  REQUIRE_GPU();
  const size_t bytes = 256u << 20;
  DeviceBuffer a(bytes), b(bytes);
  a.fillBytes(0x5A);
  b.fillBytes(0);
  Stream s;
  Event start, stop;
  copyDeviceToDevice(b.ptr(), a.ptr(), bytes, s.handle());  // warm-up
  start.record(s.handle());
  for (int i = 0; i < 10; ++i) copyDeviceToDevice(b.ptr(), a.ptr(), bytes, s.handle());
  stop.record(s.handle());
  stop.synchronize();
  float ms = stop.elapsedMs(start);
  EXPECT_GT(ms, 0.0f);
  double gbps = 2.0 * 10 * bytes / (ms * 1e-3) / 1e9;  // read + write
  printf("device-to-device copy: %.3f ms for 10 x %zu MiB = %.0f GB/s\n", ms, bytes >> 20, gbps);
  EXPECT_LT(gbps, 10000.0);  // sanity: faster than any HBM means the events did not time the copies
  auto got = b.toHost<uint8_t>(bytes);
  EXPECT_EQ(std::count(got.begin(), got.end(), uint8_t(0x5A)), std::ptrdiff_t(bytes));
}

TEST(RuntimeGpu, InvalidPtxErrorNamesKernelAndHasJitLog) {
  REQUIRE_GPU();
  const std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry my_broken_kernel()\n{\n  this_is_not_an_instruction;\n  ret;\n}\n";
  try {
    Module::loadPTX(ptx, "my_broken_kernel");
    FAIL() << "invalid PTX loaded";
  } catch (const Error &e) {
    std::string msg = e.what();
    printf("%s\n", msg.c_str());
    EXPECT_EQ(e.code(), CUDA_ERROR_INVALID_PTX);
    EXPECT_TRUE(contains(msg, "my_broken_kernel")) << msg;
    EXPECT_TRUE(contains(msg, "CUDA_ERROR_INVALID_PTX")) << msg;
    EXPECT_TRUE(contains(msg, "JIT log: ptxas")) << msg;          // the driver's log, not "(empty)"
    EXPECT_TRUE(contains(msg, "this_is_not_an_instruction")) << msg;
    EXPECT_TRUE(contains(msg, "repro: ptxas -arch=sm_")) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
}

TEST(RuntimeGpu, PtxTooNewForDriverIsExplained) {
  REQUIRE_GPU();
  const std::string ptx = ".version 99.9\n.target sm_90\n.address_size 64\n";
  try {
    Module::loadPTX(ptx, "future_kernel");
    FAIL() << "PTX 99.9 loaded";
  } catch (const Error &e) {
    std::string msg = e.what();
    printf("%s\n", msg.c_str());
    EXPECT_TRUE(contains(msg, "future_kernel")) << msg;
    EXPECT_EQ(e.code(), CUDA_ERROR_UNSUPPORTED_PTX_VERSION) << msg;
  }
}

// A module with no entry at all (not a kernel): exercises cuModuleGetFunction's error path.
TEST(RuntimeGpu, MissingFunctionAndModuleCacheFailuresAreNotCached) {
  REQUIRE_GPU();
  const std::string empty = ".version 8.0\n.target sm_90\n.address_size 64\n";
  Module m = Module::loadPTX(empty, "empty_module");
  try {
    m.function("no_such_kernel");
    FAIL();
  } catch (const Error &e) {
    EXPECT_TRUE(contains(e.what(), "cuModuleGetFunction")) << e.what();
    EXPECT_TRUE(contains(e.what(), "no_such_kernel")) << e.what();
    EXPECT_EQ(e.code(), CUDA_ERROR_NOT_FOUND) << e.what();
  }
  ModuleCache cache;
  int produced = 0;
  auto produce = [&] { ++produced; return empty; };
  CUcontext ctx = Context::get().handle();
  EXPECT_THROW(cache.getOrLoad(ctx, 42, "no_such_kernel", produce), Error);
  EXPECT_THROW(cache.getOrLoad(ctx, 42, "no_such_kernel", produce), Error);
  EXPECT_EQ(produced, 2);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(RuntimeGpu, LaunchErrorNamesKernel) {
  REQUIRE_GPU();
  Context::get();
  try {
    launch(nullptr, {1, 1, 1}, {32, 1, 1}, 0, nullptr, nullptr, "ghost_kernel");
    FAIL();
  } catch (const Error &e) {
    printf("%s\n", e.what());
    EXPECT_TRUE(contains(e.what(), "cuLaunchKernel")) << e.what();
    EXPECT_TRUE(contains(e.what(), "ghost_kernel")) << e.what();
    EXPECT_TRUE(contains(e.what(), "grid=(1,1,1) block=(32,1,1)")) << e.what();
  }
}
