// KernelBase::compile (pipeline + disk cache) and the launch path's behaviour without a GPU.
#include "tile/tile.h"

#include "tile/runtime/DiskCache.h"
#include "tile/runtime/Driver.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <unistd.h>

using namespace tile;

namespace {

constexpr uint64_t kAligned = 0x10000;

auto makeAdd() {
  return tile::kernel("dsl_compile_add", [](Ptr<float> x, Ptr<float> y, Ptr<float> z, I32 n, Const<int> BLOCK) {
    auto offs = program_id(0) * BLOCK + arange(0, BLOCK);
    auto mask = offs < n;
    store(z + offs, load(x + offs, mask) + load(y + offs, mask), mask);
  });
}

/// A private cache directory: DiskCache::global() reads $TILE_CACHE_DIR on first use, so
/// this must run before anything in this binary touches the cache.
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
  EXPECT_NE(a.ptx.find(".entry dsl_compile_add"), std::string::npos) << a.ptx;
  EXPECT_NE(a.target.find("sm_90"), std::string::npos) << a.target;
  CompileResult b = add.compile(spec, req);
  EXPECT_TRUE(b.fromDiskCache);
  EXPECT_EQ(a.ptx, b.ptx);
  EXPECT_EQ(a.sharedBytes, b.sharedBytes);
  EXPECT_EQ(a.numWarps, b.numWarps);
  EXPECT_EQ(a.target, b.target);

  // A different specialisation is a different entry.
  CompileResult c = add.compile(add.specialize(4, kAligned, kAligned, kAligned, 4096, 512), req);
  EXPECT_FALSE(c.fromDiskCache);
}

TEST_F(DslCompile, KeepStagesFillsEveryStage) {
  auto add = makeAdd();
  CompileRequest req;
  req.sm = 90;
  req.keepStages = true;
  CompileResult r = add.compile(add.specialize(4, kAligned, kAligned, kAligned, 4096, 256), req);
  EXPECT_FALSE(r.fromDiskCache);
  EXPECT_EQ(r.kernelName, "dsl_compile_add");
  EXPECT_NE(r.tileIR.find("tile.make_range"), std::string::npos);
  EXPECT_FALSE(r.optimizedIR.empty());
  EXPECT_FALSE(r.llvmIR.empty());
  EXPECT_FALSE(r.ptx.empty());
}

TEST_F(DslCompile, MalformedPayloadIsAMiss) {
  auto add = makeAdd();
  Specialization spec = add.specialize(4, kAligned, kAligned, kAligned, 4096, 128);
  CompileRequest req;
  req.sm = 90;
  std::set<std::string> before;
  for (auto &e : std::filesystem::directory_iterator(dir_)) before.insert(e.path().stem().string());
  CompileResult a = add.compile(spec, req);
  ASSERT_FALSE(a.fromDiskCache);
  std::string key;
  for (auto &e : std::filesystem::directory_iterator(dir_))
    if (!before.count(e.path().stem().string())) key = e.path().stem().string();
  ASSERT_FALSE(key.empty()) << "compile() wrote no cache entry";
  // A well-formed cache entry whose payload is not ours: recompiled, then rewritten.
  tile::rt::DiskCache::global().store(key, "tile-ptx v1\nshared x\n");
  CompileResult b = add.compile(spec, req);
  EXPECT_FALSE(b.fromDiskCache);
  EXPECT_EQ(a.ptx, b.ptx);
  EXPECT_TRUE(add.compile(spec, req).fromDiskCache);
}

TEST(DslLaunch, WithoutGpuThrowsOneLine) {
  if (tile::rt::gpuAvailable()) GTEST_SKIP() << "a GPU is present";
  auto add = makeAdd();
  uint64_t x = kAligned;
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
