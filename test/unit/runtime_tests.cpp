// Runtime tests that need no GPU: hashing, the disk cache, and the no-GPU error paths.
#include "tile/Spec.h"
#include "tile/runtime/Context.h"
#include "tile/runtime/DiskCache.h"
#include "tile/runtime/Driver.h"
#include "tile/runtime/Error.h"
#include "tile/runtime/Hash.h"
#include "tile/runtime/Memory.h"
#include "tile/runtime/ModuleCache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

namespace fs = std::filesystem;
using namespace tile::rt;

// ---------------------------------------------------------------- Hash
static_assert(fnv1a64("") == 0xcbf29ce484222325ULL);
static_assert(fnv1a64("a") == 0xaf63dc4c8601ec8cULL);

TEST(RuntimeHash, Fnv1aKnownVectors) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
  EXPECT_EQ(fnv1a64(std::string_view("\0", 1)), 0xaf63bd4c8601b7dfULL); // bytes, not C strings
}

TEST(RuntimeHash, Hex64AndDigest) {
  EXPECT_EQ(hex64(0xcbf29ce484222325ULL), "cbf29ce484222325");
  EXPECT_EQ(hex64(1), "0000000000000001");
  std::string d = digest("kernel ir");
  EXPECT_EQ(d.size(), 32u);
  EXPECT_EQ(d.substr(0, 16), hex64(fnv1a64("kernel ir")));
  EXPECT_NE(d.substr(0, 16), d.substr(16));
  EXPECT_EQ(d, digest("kernel ir"));
  EXPECT_NE(d, digest("kernel ir "));
}

// Values of the four hand-written FNV-1a loops that Hash.h replaced (launch-path specialisation
// hashes, checkpoint checksums, kernel name hashes, stage-dump names): they key caches and files,
// so the shared implementation must reproduce them bit for bit.
TEST(RuntimeHash, SharedFnv1aKeepsTheOldValues) {
  const char bytes[] = "TILECKPT\x02";
  EXPECT_EQ(fnv1a64Bytes(bytes, sizeof bytes - 1), fnv1a64(std::string_view(bytes, sizeof bytes - 1)));
  EXPECT_EQ(fnv1a64Bytes("foobar", 6), 0x85944171f73967e8ULL);
  EXPECT_EQ(fnv1a64("matmul_f16"), 0x703e974432114d83ULL);    // a kernel name's hash (dsl/)
  EXPECT_EQ(fnv1a64("module {\n}\n"), 0x6734a42aee7c2b9dULL); // a stage dump's text (compiler/)
  EXPECT_EQ(fnv1a64Mix(kFnvOffsetBasis, 0x61), fnv1a64(std::string_view("a\0\0\0\0\0\0\0", 8)));

  tile::Specialization empty, spec;
  spec.numWarps = 4;
  spec.numStages = 3;
  spec.args.push_back({tile::ArgKind::Ptr, 0, /*div16=*/true, false});
  spec.args.push_back({tile::ArgKind::Const, 128, false, false});
  spec.args.push_back({tile::ArgKind::I32, 0, false, /*one=*/true});
  EXPECT_EQ(tile::hashSpecialization(empty, 0), 0x4c27c89914ab0361ULL);
  EXPECT_EQ(tile::hashSpecialization(spec, 0), 0x65e6ccaa815e46e7ULL);
  EXPECT_EQ(tile::hashSpecialization(spec, 0x1234567890abcdefULL), 0x9f7ce2f414b0b548ULL);
  EXPECT_EQ(tile::hashSpecialization(empty, 42), 0x8251e96770daedcbULL);
}

// ---------------------------------------------------------------- No-GPU paths
#define SKIP_IF_GPU()                                                                                                  \
  do {                                                                                                                 \
    if (gpuAvailable()) GTEST_SKIP() << "a GPU is present; no-GPU path not testable";                                  \
  } while (0)

TEST(RuntimeNoGpu, GpuAvailableGivesOneLineReason) {
  SKIP_IF_GPU();
  std::string why;
  EXPECT_FALSE(gpuAvailable(&why));
  EXPECT_FALSE(why.empty());
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  EXPECT_TRUE(why.find("libcuda") != std::string::npos || why.find("device") != std::string::npos) << why;
  EXPECT_EQ(deviceCount(), 0);
}

TEST(RuntimeNoGpu, ContextGetThrowsOneLineError) {
  SKIP_IF_GPU();
  std::string why;
  gpuAvailable(&why);
  try {
    Context::get();
    FAIL() << "Context::get() did not throw";
  } catch (const Error &e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_NE(msg.find(why), std::string::npos) << msg;
    EXPECT_NE(msg.find("no usable GPU"), std::string::npos) << msg;
  }
  EXPECT_THROW(Context::get(), std::runtime_error); // Error is a runtime_error; failure is not cached wrongly
}

TEST(RuntimeNoGpu, AllocationThrowsButEmptyBuffersDoNot) {
  SKIP_IF_GPU();
  EXPECT_THROW(DeviceBuffer(1024), Error);
  DeviceBuffer empty;
  EXPECT_EQ(empty.ptr(), 0u);
  DeviceBuffer zero(0);
  EXPECT_EQ(zero.bytes(), 0u);
  EXPECT_THROW(ModuleCache::global().getOrLoad(nullptr, 1, "k", [] { return std::string(); }), Error);
}

TEST(RuntimeError, MessageIsOneLine) {
  Error e("first\nsecond\n");
  EXPECT_STREQ(e.what(), "first | second");
  EXPECT_EQ(e.code(), CUDA_SUCCESS);
  EXPECT_EQ(Error("x", CUDA_ERROR_OUT_OF_MEMORY).code(), CUDA_ERROR_OUT_OF_MEMORY);
}

// ---------------------------------------------------------------- DiskCache
class RuntimeDiskCache : public ::testing::Test {
protected:
  void SetUp() override {
    unsetenv("TILE_FORCE_RECOMPILE");
    char tmpl[] = "/tmp/tile-diskcache-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root = tmpl;
    dir = root + "/cache"; // does not exist yet: store() must create it
  }
  void TearDown() override { fs::remove_all(root); }

  std::set<std::string> files() const {
    std::set<std::string> out;
    if (fs::exists(dir))
      for (auto &e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
    return out;
  }
  std::string read(const std::string &path) const {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  void write(const std::string &path, const std::string &data) const {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
  }
  // Loads a corrupted entry: must miss, say so in one stderr line, and delete the file.
  void expectCorrupt(DiskCache &c, const std::string &key, const std::string &why) {
    std::string path = c.pathFor(key);
    ASSERT_TRUE(fs::exists(path));
    testing::internal::CaptureStderr();
    auto got = c.load(key);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_FALSE(got.has_value()) << why;
    EXPECT_FALSE(fs::exists(path)) << why;
    EXPECT_EQ(err, "tile: cache entry " + path + " is corrupt (" + why + "); recompiling\n");
  }

  std::string root, dir;
  const std::string key = digest("some kernel");
  const std::string payload = std::string("// PTX\n.version 8.0\n\0binary\n", 27) + std::string(5000, 'x');
};

TEST_F(RuntimeDiskCache, RoundTrip) {
  DiskCache c(dir);
  c.store(key, payload);
  EXPECT_EQ(files(), std::set<std::string>{key + ".tile"}); // atomic store left no temp file
  auto got = c.load(key);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, payload);
  // Format is the documented one.
  EXPECT_EQ(read(c.pathFor(key)), "tile-cache v1 " + key + " " + std::to_string(payload.size()) + " " +
                                      hex64(fnv1a64(payload)) + "\n" + payload);
  c.store(key, ""); // overwrite; empty payload is valid
  EXPECT_EQ(c.load(key), std::optional<std::string>(""));
  EXPECT_EQ(files().size(), 1u);
}

TEST_F(RuntimeDiskCache, MissIsSilent) {
  DiskCache c(dir);
  testing::internal::CaptureStderr();
  EXPECT_FALSE(c.load(key).has_value());
  c.store(key, payload);
  EXPECT_FALSE(c.load(digest("other")).has_value());
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST_F(RuntimeDiskCache, Truncated) {
  DiskCache c(dir);
  c.store(key, payload);
  std::string data = read(c.pathFor(key));
  write(c.pathFor(key), data.substr(0, data.size() - 10));
  expectCorrupt(c, key,
                "payload is " + std::to_string(payload.size() - 10) + " bytes, header says " +
                    std::to_string(payload.size()));
}

TEST_F(RuntimeDiskCache, FlippedByte) {
  DiskCache c(dir);
  c.store(key, payload);
  std::string data = read(c.pathFor(key));
  data[data.size() - 100] ^= 0x01;
  write(c.pathFor(key), data);
  expectCorrupt(c, key, "checksum mismatch");
}

TEST_F(RuntimeDiskCache, WrongKeyInHeader) {
  DiskCache c(dir);
  std::string other = digest("other kernel");
  c.store(other, payload);
  fs::rename(c.pathFor(other), c.pathFor(key));
  expectCorrupt(c, key, "header names key " + other);
}

TEST_F(RuntimeDiskCache, Garbage) {
  DiskCache c(dir);
  fs::create_directories(dir);
  write(c.pathFor(key), std::string(4096, '\xab'));
  expectCorrupt(c, key, "no header line");
  write(c.pathFor(key), "hello world\npayload");
  expectCorrupt(c, key, "bad header");
  write(c.pathFor(key), "");
  expectCorrupt(c, key, "no header line");
  write(c.pathFor(key), "tile-cache v2 " + key + " 0 " + hex64(fnv1a64("")) + "\n");
  expectCorrupt(c, key, "unsupported version v2");
  write(c.pathFor(key), "tile-cache v1 " + key + " 1x " + hex64(fnv1a64("")) + "\n");
  expectCorrupt(c, key, "bad payload size");
}

TEST_F(RuntimeDiskCache, ForceRecompile) {
  DiskCache c(dir);
  c.store(key, payload);
  setenv("TILE_FORCE_RECOMPILE", "1", 1);
  EXPECT_TRUE(DiskCache::forceRecompile());
  EXPECT_FALSE(c.load(key).has_value());
  EXPECT_TRUE(fs::exists(c.pathFor(key))); // a forced miss is not a corrupt entry
  setenv("TILE_FORCE_RECOMPILE", "0", 1);
  EXPECT_FALSE(DiskCache::forceRecompile());
  EXPECT_EQ(c.load(key), std::optional<std::string>(payload));
}

TEST_F(RuntimeDiskCache, ConcurrentStoresStayWhole) {
  DiskCache c(dir);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) c.store(key, std::string(1000 + t * 100 + i, char('a' + t)));
    });
  for (auto &t : ts) t.join();
  auto got = c.load(key);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->find_first_not_of((*got)[0]), std::string::npos);
  EXPECT_EQ(files(), std::set<std::string>{key + ".tile"});
}

TEST_F(RuntimeDiskCache, RejectsPathLikeKeys) {
  DiskCache c(dir);
  EXPECT_THROW(c.store("../escape", "x"), Error);
  EXPECT_THROW(c.load(""), Error);
  EXPECT_THROW(c.pathFor(".hidden"), Error);
}

TEST_F(RuntimeDiskCache, UnwritableDirWarnsAndContinues) {
  if (geteuid() == 0) GTEST_SKIP() << "root ignores permissions (StoreIntoFileFallsBackToMemory covers root)";
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
  DiskCache c(dir);
  testing::internal::CaptureStderr();
  c.store(key, payload);
  c.store(digest("second"), payload);
  std::string err = testing::internal::GetCapturedStderr();
  fs::permissions(dir, fs::perms::owner_all);
  EXPECT_NE(err.find("cannot write cache entry"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_EQ(c.load(key), std::optional<std::string>(payload)); // from memory
}

// A cache directory that cannot exist: one of its parents is a regular file. Unlike a chmod'ed
// directory this fails for root too (the tests run as root in CI), for mkdir and open alike.
TEST_F(RuntimeDiskCache, StoreIntoFileFallsBackToMemory) {
  write(root + "/file", "x");
  std::string bad = root + "/file/cache";
  DiskCache c(bad);
  testing::internal::CaptureStderr();
  EXPECT_FALSE(c.load(key).has_value()); // a missing directory is a silent miss
  c.store(key, payload);
  for (int i = 0; i < 10; ++i) c.store(digest("kernel " + std::to_string(i)), "payload " + std::to_string(i));
  // Another object over the same directory (the autotuner makes one per use) shares the memory.
  DiskCache again(bad);
  again.store(digest("one more"), "x");
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "tile: cannot write cache entry " + bad + "/" + key +
                     ".tile (open: Not a directory); keeping "
                     "compiled kernels in memory for the rest of this process\n");
  EXPECT_TRUE(DiskCache::inMemoryOnly(bad));
  EXPECT_FALSE(DiskCache::inMemoryOnly(dir));
  EXPECT_EQ(c.load(key), std::optional<std::string>(payload));
  EXPECT_EQ(again.load(digest("kernel 3")), std::optional<std::string>("payload 3"));
  EXPECT_EQ(c.load(digest("one more")), std::optional<std::string>("x"));
  EXPECT_FALSE(c.load(digest("never stored")).has_value());
  setenv("TILE_FORCE_RECOMPILE", "1", 1); // still bypasses every entry, in memory too
  EXPECT_FALSE(c.load(key).has_value());
  unsetenv("TILE_FORCE_RECOMPILE");
  EXPECT_FALSE(fs::exists(root + "/file/cache"));
}

TEST(RuntimeDiskCacheDir, DefaultDirFollowsEnvironment) {
  setenv("TILE_CACHE_DIR", "/x/tile-cache", 1);
  EXPECT_EQ(DiskCache::defaultDir(), "/x/tile-cache");
  unsetenv("TILE_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(DiskCache::defaultDir(), "/xdg/tile");
  setenv("XDG_CACHE_HOME", "relative", 1); // invalid per XDG: ignored
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(DiskCache::defaultDir(), "/home/u/.cache/tile");
  unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(DiskCache::defaultDir(), "/home/u/.cache/tile");
  EXPECT_EQ(DiskCache("").dir(), "/home/u/.cache/tile");
}
