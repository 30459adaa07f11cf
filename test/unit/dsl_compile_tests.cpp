// KernelBase::compile (pipeline + disk cache) and the launch path's behaviour without a GPU.
#include "tile/tile.h"

#include "tile/runtime/CompiledKernel.h"
#include "tile/runtime/DiskCache.h"
#include "tile/runtime/Driver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <unistd.h>

using namespace tile;

namespace {

constexpr tile::DeviceAddress kAligned{0x10000};

auto makeAdd() {
  return tile::kernel("dsl_compile_add", [](Ptr<float> x, Ptr<float> y, Ptr<float> z, I32 n, Const<int> BLOCK) {
    auto offs = program_id(0) * BLOCK + arange(0, BLOCK);
    auto mask = offs < n;
    store(z + offs, load(x + offs, mask) + load(y + offs, mask), mask);
  });
}

/// A private cache directory. DiskCache::global() reads $TILE_CACHE_DIR once, on first use:
/// when the whole binary runs in one process, an earlier suite (DslCacheFaults) has already
/// opened it on a directory of its own, so the tests look for entries in
/// DiskCache::global().dir(), the directory compile() writes to, never in dir_.
class DslCompile : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() / ("tile-dsl-test-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    setenv("TILE_CACHE_DIR", dir_.c_str(), 1);
    unsetenv("TILE_FORCE_RECOMPILE");
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }
  static std::filesystem::path dir_;
};
std::filesystem::path DslCompile::dir_;

} // namespace

TEST_F(DslCompile, SecondCompileHitsDiskCache) {
  auto add = makeAdd();
  Specialization spec = add.specialize(4, kAligned, kAligned, kAligned, 4096, 1024);
  CompileRequest req;
  req.sm = 90;
  CompileResult a = add.compile(spec, req);
  EXPECT_FALSE(a.fromDiskCache);
  EXPECT_EQ(a.kernel.name, "dsl_compile_add");
  EXPECT_NE(a.kernel.ptx.find(".entry dsl_compile_add"), std::string::npos) << a.kernel.ptx;
  EXPECT_NE(a.kernel.target.find("sm_90"), std::string::npos) << a.kernel.target;
  EXPECT_EQ(a.kernel.meta.numWarps, 4u);
  CompileResult b = add.compile(spec, req);
  EXPECT_TRUE(b.fromDiskCache);
  EXPECT_EQ(a.kernel, b.kernel); // name, target, PTX and launch metadata

  // A different specialisation is a different entry.
  CompileResult c = add.compile(add.specialize(4, kAligned, kAligned, kAligned, 4096, 512), req);
  EXPECT_FALSE(c.fromDiskCache);
}

/// A K loop of f16 dots (tensor cores on sm_90): its operand loads are software-pipelined.
auto makeMatmul() {
  return tile::kernel("dsl_compile_mm", [](Ptr<f16> a, Ptr<f16> b, Ptr<float> c, I32 k) {
    Value rm = arange(0, 64), rn = arange(0, 64), rk = arange(0, 32);
    Value acc = for_range(0, k, 32, zeros({64, 64}, DType::f32), [&](Value k0, Value acc) {
      Value ta = load(a + col(rm) * k + row(k0 + rk));
      Value tb = load(b + col(k0 + rk) * 64 + row(rn));
      return dot(ta, tb, acc);
    });
    store(c + col(rm) * 64 + row(rn), acc);
  });
}

TEST_F(DslCompile, NumStagesSizesThePipelineRings) {
  auto mm = makeMatmul();
  CompileRequest req;
  req.sm = 90;
  req.keepStages = true;
  auto ringsOf = [&](int stages, int sm = 90) {
    Specialization spec = mm.specialize(4, kAligned, kAligned, kAligned, 4096);
    spec.numStages = stages;
    CompileRequest r90 = req;
    r90.sm = sm;
    CompileResult r = mm.compile(spec, r90);
    EXPECT_FALSE(r.fromDiskCache) << "num_stages " << stages << " must be its own cache entry";
    return r.optimizedIR;
  };
  // The default: 3 stages for mma.sync (sm_80); 4 on sm_90a, where one slot is held by the
  // wgmma group kept in flight.
  EXPECT_NE(ringsOf(0, 80).find("!tile.memdesc<3x64x32xf16"), std::string::npos) << "sm_80 default: 3 stages";
  EXPECT_NE(ringsOf(0).find("!tile.memdesc<4x64x32xf16"), std::string::npos) << "sm_90a default: 4 stages";
  EXPECT_NE(ringsOf(0).find("tile.warpgroup_dot_wait"), std::string::npos) << "sm_90a: a wgmma group in flight";
  EXPECT_NE(ringsOf(2).find("!tile.memdesc<2x64x32xf16"), std::string::npos);
  EXPECT_NE(ringsOf(4).find("!tile.memdesc<4x64x32xf16"), std::string::npos);
  std::string off = ringsOf(1);
  EXPECT_EQ(off.find("tile.async_copy"), std::string::npos) << "1 stage: no pipelining";

  Specialization bad = mm.specialize(4, kAligned, kAligned, kAligned, 4096);
  bad.numStages = 9;
  try {
    mm.compile(bad, req);
    ADD_FAILURE() << "num_stages 9 accepted";
  } catch (const std::exception &e) {
    EXPECT_NE(std::string(e.what()).find("num_stages must be 1..8"), std::string::npos) << e.what();
  }
  EXPECT_EQ(bad.str(), "w4,s9,p16,p16,p16,i16");
  Specialization parsed;
  ASSERT_TRUE(parseSpecialization(bad.str(), parsed));
  EXPECT_EQ(parsed, bad);
}

TEST_F(DslCompile, KeepStagesFillsEveryStage) {
  auto add = makeAdd();
  CompileRequest req;
  req.sm = 90;
  req.keepStages = true;
  CompileResult r = add.compile(add.specialize(4, kAligned, kAligned, kAligned, 4096, 256), req);
  EXPECT_FALSE(r.fromDiskCache);
  EXPECT_EQ(r.kernel.name, "dsl_compile_add");
  EXPECT_NE(r.tileIR.find("tile.make_range"), std::string::npos);
  EXPECT_FALSE(r.optimizedIR.empty());
  EXPECT_FALSE(r.llvmIR.empty());
  EXPECT_FALSE(r.kernel.ptx.empty());
}

/// The stems of the files in `dir` (none when it does not exist: the suite that opened the
/// process-wide cache may have removed its directory, which the next store recreates).
std::set<std::string> entryKeys(const std::filesystem::path &dir) {
  std::set<std::string> keys;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(dir, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec))
    keys.insert(it->path().stem().string());
  return keys;
}

/// The key of the one cache entry `compile` writes (into the process-wide cache's directory).
template <class Compile> std::string keyWrittenBy(Compile compile) {
  const std::filesystem::path dir = tile::rt::DiskCache::global().dir();
  std::set<std::string> before = entryKeys(dir);
  compile();
  std::string key;
  for (const std::string &k : entryKeys(dir))
    if (!before.count(k)) key = k;
  return key;
}

TEST_F(DslCompile, MalformedPayloadIsAMiss) {
  auto add = makeAdd();
  Specialization spec = add.specialize(4, kAligned, kAligned, kAligned, 4096, 128);
  CompileRequest req;
  req.sm = 90;
  CompileResult a;
  std::string key = keyWrittenBy([&] { a = add.compile(spec, req); });
  ASSERT_FALSE(a.fromDiskCache);
  ASSERT_FALSE(key.empty()) << "compile() wrote no cache entry";
  // Well-formed cache entries whose payloads are no usable record: reported in one line,
  // recompiled, then rewritten.
  rt::CompiledKernel other = a.kernel;
  other.name = "another_kernel";
  struct Bad {
    std::string payload, why;
  };
  for (const Bad &bad : {Bad{"tile-ptx v1\nshared x\n",
                             "format v1, this build reads v" + std::to_string(rt::kCompiledKernelFormatVersion)},
                         Bad{rt::encodeCompiledKernel(a.kernel).substr(0, 200), "truncated PTX"},
                         Bad{rt::encodeCompiledKernel(other), "it holds kernel 'another_kernel'"}}) {
    tile::rt::DiskCache::global().store(key, bad.payload);
    testing::internal::CaptureStderr();
    CompileResult b = add.compile(spec, req);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_FALSE(b.fromDiskCache);
    EXPECT_EQ(a.kernel, b.kernel);
    EXPECT_NE(err.find("holds no usable kernel record (" + bad.why), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_TRUE(add.compile(spec, req).fromDiskCache);
  }
}

TEST(DslLaunch, WithoutGpuThrowsOneLine) {
  if (tile::rt::gpuAvailable()) GTEST_SKIP() << "a GPU is present";
  auto add = makeAdd();
  tile::DeviceAddress x = kAligned;
  tile::LaunchOptions gpu; // Executor::Auto would fall back to the CPU executor here
  gpu.executor = tile::Executor::GPU;
  try {
    add.launch({4}, gpu, x, x, x, 4096, 1024);
    FAIL() << "launch without a GPU must throw";
  } catch (const std::exception &e) {
    std::string msg = e.what();
    EXPECT_FALSE(msg.empty());
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}
