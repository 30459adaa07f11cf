// Runtime tests on a real GPU (ctest label `gpu`). Each skips with the reason when there is none.
// Kernels come only from the compiler (hand-written PTX kernels are not allowed): these cover
// memory, copies, events, the module/launch error paths and CUDA graphs (Graph.h) of copies; where
// the build has the ahead-of-time library kernels (TILE_RUNTIME_GPU_AOT), graphs of kernel
// launches too.
#include "tile/runtime/Context.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Error.h"
#include "tile/runtime/Graph.h"
#include "tile/runtime/Hash.h"
#include "tile/runtime/Launch.h"
#include "tile/runtime/Memory.h"
#include "tile/runtime/Module.h"
#include "tile/runtime/ModuleCache.h"
#include "tile/runtime/Stream.h"

#if TILE_RUNTIME_GPU_AOT
#include "tile/kernels/AotLauncher.h"
#include "tile/kernels/Elementwise.h"
#include "tile/kernels/Relu.h"
#include "tile/kernels/Sgd.h"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <optional>

using namespace tile::rt;

#define REQUIRE_GPU()                                                                                                  \
  do {                                                                                                                 \
    std::string why_;                                                                                                  \
    if (!gpuAvailable(&why_)) GTEST_SKIP() << why_;                                                                    \
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
  } catch (const Error &e) { EXPECT_TRUE(contains(e.what(), "out of range")) << e.what(); }
}

TEST(RuntimeGpu, PoisonAndRoundTrip) {
  REQUIRE_GPU();
  std::vector<float> host(1 << 20);
  std::iota(host.begin(), host.end(), 0.5f);
  DeviceBuffer buf = DeviceBuffer::fromHost(host);
  EXPECT_NE(buf.ptr(), 0u);
  EXPECT_EQ(buf.bytes(), host.size() * sizeof(float));
  EXPECT_EQ(buf.toHost<float>(host.size()), host);

  buf.fillBytes(0xFF); // all-ones floats are NaN: a poisoned output can never pass a check
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
  copyDeviceToDevice(b.ptr(), a.ptr(), bytes, s.handle()); // warm-up
  start.record(s.handle());
  for (int i = 0; i < 10; ++i) copyDeviceToDevice(b.ptr(), a.ptr(), bytes, s.handle());
  stop.record(s.handle());
  stop.synchronize();
  float ms = stop.elapsedMs(start);
  EXPECT_GT(ms, 0.0f);
  double gbps = 2.0 * 10 * bytes / (ms * 1e-3) / 1e9; // read + write
  printf("device-to-device copy: %.3f ms for 10 x %zu MiB = %.0f GB/s\n", ms, bytes >> 20, gbps);
  EXPECT_LT(gbps, 10000.0); // sanity: faster than any HBM means the events did not time the copies
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
    EXPECT_TRUE(contains(msg, "JIT log: ptxas")) << msg; // the driver's log, not "(empty)"
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
  auto produce = [&] {
    ++produced;
    return empty;
  };
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

// ---------------------------------------------------------------- CUDA graphs (Graph.h)

TEST(RuntimeGpuGraph, CapturedCopiesRunOnlyWhenReplayedAndReadTheSourceAtReplay) {
  REQUIRE_GPU();
  const size_t n = 1 << 16, bytes = n * sizeof(float);
  PinnedHostBuffer src(bytes), dst(bytes);
  for (size_t i = 0; i < n; ++i) src.as<float>()[i] = 0.5f * float(i);
  DeviceBuffer a(bytes), b(bytes);
  a.fillBytes(0xFF);
  b.fillBytes(0xFF);
  std::memset(dst.data(), 0xFF, bytes); // poisoned: NaN everywhere
  Stream s;
  Graph g;
  {
    StreamCapture capture(s.handle());
    EXPECT_TRUE(isCapturing(s.handle()));
    copyHostToDeviceAsync(a.ptr(), src.data(), bytes, s.handle());
    copyDeviceToDevice(b.ptr(), a.ptr(), bytes, s.handle());
    copyDeviceToHostAsync(dst.data(), b.ptr(), bytes, s.handle());
    g = capture.end();
  }
  EXPECT_FALSE(isCapturing(s.handle()));
  EXPECT_EQ(g.nodeCount(), 3u);
  s.synchronize();
  EXPECT_EQ(dst.as<uint32_t>()[0], 0xFFFFFFFFu) << "a capture records; it runs nothing";

  GraphExec exec(g);
  exec.launch(s.handle());
  s.synchronize();
  EXPECT_EQ(std::memcmp(dst.data(), src.data(), bytes), 0);

  for (size_t i = 0; i < n; ++i) src.as<float>()[i] = -1.0f - float(i);
  std::memset(dst.data(), 0xFF, bytes);
  exec.launch(s.handle());
  s.synchronize();
  EXPECT_EQ(std::memcmp(dst.data(), src.data(), bytes), 0) << "the copy reads its source when replayed";
}

TEST(RuntimeGpuGraph, AnUncapturableCallFailsInOneLineAndLeavesTheStreamUsable) {
  REQUIRE_GPU();
  Stream s;
  DeviceBuffer a(4096), b(4096);
  std::vector<uint8_t> host(4096);
  std::string msg;
  try {
    StreamCapture capture(s.handle());
    copyDeviceToDevice(b.ptr(), a.ptr(), 4096, s.handle());
    a.copyToHost(host.data(), host.size()); // synchronous, on the legacy stream: not capturable
    capture.end();
  } catch (const Error &e) { msg = e.what(); }
  printf("%s\n", msg.c_str());
  EXPECT_TRUE(contains(msg, "CAPTURE")) << msg; // CUDA_ERROR_STREAM_CAPTURE_{UNSUPPORTED,IMPLICIT,INVALIDATED}
  EXPECT_EQ(msg.find('\n'), std::string::npos);
  EXPECT_FALSE(isCapturing(s.handle()));
  a.fillBytes(0x11);
  copyDeviceToDevice(b.ptr(), a.ptr(), 4096, s.handle());
  s.synchronize();
  auto got = b.toHost<uint8_t>(4096);
  EXPECT_EQ(std::count(got.begin(), got.end(), uint8_t(0x11)), 4096);
}

#if TILE_RUNTIME_GPU_AOT
namespace {
namespace tk = tile::kernels;

// z = x + y, r = relu(z), p -= 0.5 r over m elements: three launches, each reading the last's output.
struct ThreeLaunches {
  tk::AotLauncher aot;
  int64_t n;
  std::vector<float> x, y, p0;
  DeviceBuffer X, Y, Z, R, P;
  explicit ThreeLaunches(int64_t count) : n(count), x(size_t(n)), y(size_t(n)), p0(size_t(n)) {
    uint32_t state = 12345;
    auto next = [&] { return float((state = state * 1664525u + 1013904223u) >> 8) / float(1 << 24) - 0.5f; };
    for (int64_t i = 0; i < n; ++i) x[size_t(i)] = next(), y[size_t(i)] = next(), p0[size_t(i)] = next();
    X = DeviceBuffer::fromHost(x);
    Y = DeviceBuffer::fromHost(y);
    P = DeviceBuffer::fromHost(p0);
    Z = DeviceBuffer(size_t(n) * 4);
    R = DeviceBuffer(size_t(n) * 4);
  }
  void enqueue(CUstream s, int64_t m) {
    tk::VectorAdd::launch(aot, X, Y, Z, m, s);
    tk::ReluForward::launch(aot, Z, R, m, s);
    tk::SgdUpdate::launch(aot, P, R, 0.5f, m, s);
  }
  // Outputs poisoned (NaN), the updated parameters back to their start.
  void reset() {
    Z.fillBytes(0xFF);
    R.fillBytes(0xFF);
    P.copyFromHost(p0.data(), p0.size() * 4);
  }
  std::vector<uint32_t> bits(const DeviceBuffer &b) const { return b.toHost<uint32_t>(size_t(n)); }
  std::vector<std::vector<uint32_t>> outputs() const { return {bits(Z), bits(R), bits(P)}; }
};
} // namespace

TEST(RuntimeGpuGraph, CapturedLaunchesReplayTheDirectLaunchesResultBitForBit) {
  REQUIRE_GPU();
  ThreeLaunches t(100003); // ragged: the last program is masked
  Stream s;
  t.reset();
  t.enqueue(s.handle(), t.n); // direct (also loads every kernel before the capture)
  s.synchronize();
  const auto direct = t.outputs();
  t.enqueue(s.handle(), t.n); // twice: p updated again
  s.synchronize();
  const auto directTwice = t.bits(t.P);

  t.reset();
  Graph g;
  {
    StreamCapture capture(s.handle());
    t.enqueue(s.handle(), t.n);
    g = capture.end();
  }
  EXPECT_EQ(g.nodeCount(), 3u);
  EXPECT_EQ(t.bits(t.Z)[0], 0xFFFFFFFFu) << "a capture records; it runs nothing";
  GraphExec exec(g);
  exec.launch(s.handle());
  s.synchronize();
  const auto replayed = t.outputs();
  const char *names[] = {"z", "relu", "p"};
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(replayed[size_t(i)] == direct[size_t(i)]) << names[i] << " differs";
  exec.launch(s.handle());
  s.synchronize();
  EXPECT_TRUE(t.bits(t.P) == directTwice) << "a second replay updates p again";
}

TEST(RuntimeGpuGraph, UpdateTakesTheNewGridAndArgumentsInPlaceOrByReinstantiating) {
  REQUIRE_GPU();
  ThreeLaunches t(200000);
  Stream s;
  const int64_t half = 50001; // another grid and n for every launch
  t.enqueue(s.handle(), t.n); // loads every kernel variant before the captures (n % 16 == 0: others)
  t.reset();
  t.enqueue(s.handle(), half);
  s.synchronize();
  const auto directHalf = t.outputs();

  auto captured = [&](int64_t m, int launches) {
    StreamCapture capture(s.handle());
    if (launches == 3) t.enqueue(s.handle(), m);
    else tk::VectorAdd::launch(t.aot, t.X, t.Y, t.Z, m, s.handle());
    return capture.end();
  };
  GraphExec exec(captured(t.n, 3));
  GraphExec::Update how = exec.update(captured(half, 3));
  printf("same topology, other grid and n: %s\n",
         how == GraphExec::Update::InPlace ? "updated in place" : "re-instantiated");
  t.reset();
  exec.launch(s.handle());
  s.synchronize();
  const auto replayed = t.outputs();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(replayed[size_t(i)] == directHalf[size_t(i)]) << "output " << i;

  // Another topology (one launch instead of three): refused by the driver, so instantiated anew.
  EXPECT_EQ(exec.update(captured(half, 1)), GraphExec::Update::Reinstantiated);
  t.reset();
  exec.launch(s.handle());
  s.synchronize();
  EXPECT_TRUE(t.bits(t.Z) == directHalf[0]);
  EXPECT_EQ(t.bits(t.R)[0], 0xFFFFFFFFu) << "only the add was captured this time";
}
// ---------------------------------------------------------------- driver faults
// Each fault is one line from the launch API naming the kernel, and leaves no sticky broken
// context: a normal launch right after computes the right result. Every message is printed,
// so a run's log shows what a user would read.
namespace {

// Launches library kernels as AotLauncher does (the same variant, and the same cached module and
// function), with what a fault test plants: another block, dynamic shared memory or PTX version.
struct FaultyLauncher : tk::Launcher {
  std::optional<Dim3> block;
  std::optional<unsigned> sharedBytes;
  std::string ptxVersion; // "" keeps the PTX's own

  void launch(const char *name, const tile::Specialization &spec, Dim3 grid, void **params, CUstream stream) override {
    const AotKernel *k = tile::aot::findLibraryKernel(name);
    const AotVariant *v = k ? selectAotVariant(*k, spec) : nullptr;
    if (!v) throw Error(std::string("FaultyLauncher: no AOT variant of ") + name);
    const CompiledKernelView &ck = v->kernel;
    std::string ptx(ck.ptx);
    uint64_t hash = fnv1a64(name) ^ reinterpret_cast<uintptr_t>(v); // launchAot's key: its cached function
    if (!ptxVersion.empty()) {
      size_t at = ptx.find(".version ");
      ptx.replace(at, ptx.find('\n', at) - at, ".version " + ptxVersion);
      hash = fnv1a64(ptx); // a module of its own, never the good one
    }
    CUfunction f = ModuleCache::global().getOrLoad(
        Context::get().handle(), hash, std::string(ck.name), [&] { return ptx; }, ck.meta.sharedBytes);
    tile::rt::launch(f, grid, block.value_or(Dim3{32 * ck.meta.numWarps, 1, 1}),
                     sharedBytes.value_or(ck.meta.sharedBytes), stream, params, name);
  }
  bool hostMemory() const override { return false; }
};

// Runs `fault`, which must throw Error: one line, naming the kernel in quotes.
void expectOneLineNamingKernel(const char *what, const std::function<void()> &fault, const std::string &kernel) {
  try {
    fault();
    ADD_FAILURE() << what << ": no error";
  } catch (const Error &e) {
    std::string msg = e.what();
    printf("%s: %s\n", what, msg.c_str());
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_TRUE(contains(msg, "'" + kernel + "'")) << msg;
    EXPECT_NE(e.code(), CUDA_SUCCESS) << msg;
  }
}

// A normal launch after a fault: z = x + y exactly, and the context synchronises without error.
void expectNormalLaunchWorks(ThreeLaunches &t) {
  t.reset();
  tk::VectorAdd::launch(t.aot, t.X, t.Y, t.Z, t.n, nullptr);
  EXPECT_NO_THROW(Context::get().synchronize());
  std::vector<float> z = t.Z.toHost<float>(size_t(t.n));
  for (size_t i = 0; i < z.size(); ++i) ASSERT_EQ(z[i], t.x[i] + t.y[i]) << "element " << i;
}

} // namespace

TEST(RuntimeGpuFaults, TooManyThreadsPerBlock) {
  REQUIRE_GPU();
  ThreeLaunches t(100003);
  FaultyLauncher faulty;
  faulty.block = Dim3{2048, 1, 1}; // every GPU allows at most 1024
  expectOneLineNamingKernel(
      "block of 2048 threads", [&] { tk::VectorAdd::launch(faulty, t.X, t.Y, t.Z, t.n, nullptr); }, "vector_add");
  expectNormalLaunchWorks(t);
}

TEST(RuntimeGpuFaults, TooMuchSharedMemory) {
  REQUIRE_GPU();
  ThreeLaunches t(100003);
  FaultyLauncher faulty;
  faulty.sharedBytes = 1u << 20; // 1 MiB of dynamic shared memory: more than any GPU has per block
  expectOneLineNamingKernel(
      "1 MiB of shared memory", [&] { tk::VectorAdd::launch(faulty, t.X, t.Y, t.Z, t.n, nullptr); }, "vector_add");
  expectNormalLaunchWorks(t);
}

TEST(RuntimeGpuFaults, PtxNewerThanTheDriver) {
  REQUIRE_GPU();
  ThreeLaunches t(100003);
  FaultyLauncher faulty;
  faulty.ptxVersion = "99.9"; // the library kernel's own PTX, claiming an ISA no driver has
  try {
    tk::VectorAdd::launch(faulty, t.X, t.Y, t.Z, t.n, nullptr);
    ADD_FAILURE() << "PTX .version 99.9 loaded";
  } catch (const Error &e) {
    std::string msg = e.what();
    printf("PTX .version 99.9: %s\n", msg.c_str());
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_TRUE(contains(msg, "'vector_add'")) << msg;
    EXPECT_EQ(e.code(), CUDA_ERROR_UNSUPPORTED_PTX_VERSION) << msg;
  }
  expectNormalLaunchWorks(t);
}

TEST(RuntimeGpuFaults, DeviceOutOfMemory) {
  REQUIRE_GPU();
  ThreeLaunches t(100003); // its buffers first: the launches below need them
  // Take every byte the driver will give, in ever smaller pieces.
  std::vector<DeviceBuffer> hog;
  std::string allocError;
  for (size_t chunk : {size_t(1) << 30, size_t(1) << 26, size_t(1) << 20}) {
    for (;;) {
      try {
        hog.emplace_back(chunk);
      } catch (const Error &e) {
        if (allocError.empty()) allocError = e.what();
        EXPECT_EQ(e.code(), CUDA_ERROR_OUT_OF_MEMORY) << e.what();
        break;
      }
    }
  }
  printf("allocation with the device full: %s (%zu buffers held)\n", allocError.c_str(), hog.size());
  EXPECT_EQ(allocError.find('\n'), std::string::npos) << allocError;
  EXPECT_TRUE(contains(allocError, "CUDA_ERROR_OUT_OF_MEMORY")) << allocError;
  // The first launch of vector_add loads its module now, with no memory left: it either runs
  // or fails in one line naming the kernel (the driver decides which).
  try {
    tk::VectorAdd::launch(t.aot, t.X, t.Y, t.Z, t.n, nullptr);
    Context::get().synchronize();
    printf("launch with the device full: loaded and ran\n");
  } catch (const Error &e) {
    std::string msg = e.what();
    printf("launch with the device full: %s\n", msg.c_str());
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_TRUE(contains(msg, "'vector_add'")) << msg;
  }
  hog.clear();
  expectNormalLaunchWorks(t);
}
#endif // TILE_RUNTIME_GPU_AOT
