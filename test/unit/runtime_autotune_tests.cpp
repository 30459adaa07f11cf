// The autotuner without a GPU: configs and keys as text, the disk entry (round trip,
// corrupt and foreign files), baked tables, and the choice logic with an injected timer
// (the GPU's CUDA-event timer is exercised by kernels_gpu_tests' MatmulAutotuneGpu).
#include "tile/Error.h"
#include "tile/runtime/Autotune.h"
#include "tile/runtime/DiskCache.h"
#include "tile/runtime/Error.h"
#include "tile/runtime/TuneEntry.h"
#include "tile/runtime/TuneTable.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace tile::rt;

namespace {

TuneConfig cfg(int64_t block, int warps, int stages = 0) { return {{{"BLOCK", block}}, warps, stages}; }

// A private cache directory per test, removed afterwards; no env variable leaks in.
class AutotuneTest : public ::testing::Test {
protected:
  void SetUp() override {
    unsetenv("TILE_FORCE_RECOMPILE");
    unsetenv("TILE_AUTOTUNE_TABLE");
    unsetenv("TILE_AUTOTUNE_VERBOSE");
    clearTuneTables();
    char tmpl[] = "/tmp/tile-autotune-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    clearTuneTables();
    fs::remove_all(dir_);
  }

  // A tuner over three candidates whose "times" are the test's table `ms_` (the injected
  // timer runs the candidate once, so a candidate that throws is seen as in a real launch).
  std::unique_ptr<Autotuner> tuner(std::string codeId = "code-1", std::string device = "Test GPU") {
    AutotuneOptions o;
    o.cacheDir = dir_;
    o.deviceName = std::move(device);
    o.timer = [this](const std::function<void()> &run, CUstream) {
      ++timed_;
      run();
      return ms_.at(current_);
    };
    return std::make_unique<Autotuner>("toy", "f32,p16", configs_, std::move(codeId), o);
  }
  Autotuner::RunCandidate runner() {
    return [this](const TuneConfig &c, CUstream) {
      current_ = c.str();
      ++runs_;
      if (failing_.count(c.str())) throw std::runtime_error("too much shared memory");
    };
  }
  std::vector<std::string> entries() const {
    std::vector<std::string> v;
    for (const auto &f : fs::directory_iterator(dir_)) v.push_back(f.path().filename().string());
    return v;
  }

  std::string dir_;
  std::vector<TuneConfig> configs_{cfg(256, 2), cfg(1024, 4), cfg(4096, 8, 3)};
  std::map<std::string, double> ms_{{cfg(256, 2).str(), 3.0}, {cfg(1024, 4).str(), 1.0}, {cfg(4096, 8, 3).str(), 2.0}};
  std::set<std::string> failing_;
  std::string current_;
  int timed_ = 0, runs_ = 0;
};

} // namespace

// ---------------------------------------------------------------- configs and keys

TEST(AutotuneConfig, TextRoundTrip) {
  TuneConfig c{{{"BM", 128}, {"BN", 64}}, 8, 3};
  EXPECT_EQ(c.str(), "BM=128,BN=64,warps=8,stages=3");
  ASSERT_TRUE(TuneConfig::parse(c.str()));
  EXPECT_EQ(*TuneConfig::parse(c.str()), c);
  TuneConfig d{{}, 4, 0};
  EXPECT_EQ(d.str(), "warps=4");
  EXPECT_EQ(*TuneConfig::parse("warps=4"), d);
  EXPECT_EQ(c["BN"], 64);
  EXPECT_THROW(c["BK"], tile::ArgumentError);
}

TEST(AutotuneConfig, ParseRejectsMalformed) {
  for (const char *bad : {"", "BM=128", "BM=128,warps=", "BM=x,warps=4", "warps=4,BM=128", "BM=1,BM=2,warps=4",
                          "stages=2,warps=4", "warps=0", "B-M=1,warps=4", "BM=1,,warps=4", "BM=1,warps=4,"})
    EXPECT_FALSE(TuneConfig::parse(bad)) << bad;
}

TEST(AutotuneKey, PowerOfTwoBuckets) {
  const std::pair<int64_t, int64_t> cases[] = {{-3, 1}, {0, 1},       {1, 1},       {2, 2},
                                               {3, 4},  {1000, 1024}, {1024, 1024}, {1025, 2048}};
  for (auto [v, want] : cases) EXPECT_EQ(nextPow2(v), want) << v;
  EXPECT_EQ(tuneKeyString({1024, 16, 7}), "1024,16,7");
  EXPECT_EQ(tuneKeyString({}), "");
}

// ---------------------------------------------------------------- the disk entry

TEST(AutotuneEntry, RoundTrip) {
  TuneEntry e{"matmul_f16", "e0,t0,fast", "NVIDIA H200", "aot-1234", {4096, 4096, 512}, {{{"BM", 128}}, 8, 0}, 0.8125};
  std::string why;
  std::optional<TuneEntry> back = decodeTuneEntry(encodeTuneEntry(e), &why);
  ASSERT_TRUE(back) << why;
  EXPECT_TRUE(back->sameSlot(e));
  EXPECT_EQ(back->config, e.config);
  EXPECT_DOUBLE_EQ(back->ms, e.ms);
  // An empty key (one tuning for every shape) round-trips too.
  e.key.clear();
  ASSERT_TRUE(decodeTuneEntry(encodeTuneEntry(e), &why)) << why;
}

TEST(AutotuneEntry, DecodeRejectsMalformed) {
  TuneEntry e{"k", "s", "d", "c", {1}, cfg(256, 4), 1};
  const std::string good = encodeTuneEntry(e);
  std::vector<std::string> bad = {"", "tile-autotune v2\n", good.substr(0, good.size() - 1),
                                  good.substr(0, good.find("\nms")) + "\n"};
  std::string swapped = good;
  swapped.replace(swapped.find("key 1"), 5, "key x");
  bad.push_back(swapped);
  std::string badConfig = good;
  badConfig.replace(badConfig.find("config "), 7, "config BLOCK=");
  bad.push_back(badConfig);
  for (const std::string &t : bad) {
    std::string why;
    EXPECT_FALSE(decodeTuneEntry(t, &why)) << t;
    EXPECT_FALSE(why.empty());
  }
}

TEST(AutotuneEntry, CacheKeyNamesEverySlotField) {
  TuneEntry e{"matmul_f16", "s", "dev", "code", {1, 2}, {}, -1};
  const std::string k = tuneEntryCacheKey(e);
  EXPECT_EQ(k.rfind("autotune-matmul_f16-", 0), 0u) << k;
  EXPECT_NO_THROW(DiskCache("/tmp").pathFor(k)); // a valid DiskCache key
  auto differs = [&](auto change) {
    TuneEntry o = e;
    change(o);
    return tuneEntryCacheKey(o) != k;
  };
  EXPECT_TRUE(differs([](TuneEntry &o) { o.space = "t"; }));
  EXPECT_TRUE(differs([](TuneEntry &o) { o.device = "other"; }));
  EXPECT_TRUE(differs([](TuneEntry &o) { o.codeId = "code2"; }));
  EXPECT_TRUE(differs([](TuneEntry &o) { o.key = {1, 3}; }));
  EXPECT_FALSE(differs([](TuneEntry &o) { o.config = cfg(1, 1); })); // the config is the value, not the key
  // Odd characters in kernel names do not make invalid file names.
  TuneEntry odd = e;
  odd.kernel = "a/b c";
  EXPECT_NO_THROW(DiskCache("/tmp").pathFor(tuneEntryCacheKey(odd)));
}

// ---------------------------------------------------------------- choosing

TEST_F(AutotuneTest, BenchmarksOnceAndPicksTheFastest) {
  auto t = tuner();
  const TuneConfig &c = t->choose({1024}, runner(), nullptr, true);
  EXPECT_EQ(c, cfg(1024, 4)); // the smallest of ms_
  EXPECT_EQ(t->lastSource(), TuneSource::Benchmark);
  EXPECT_EQ(t->benchmarks(), 1);
  EXPECT_EQ(timed_, 3);
  // The same key again: from memory, nothing timed.
  EXPECT_EQ(t->choose({1024}, runner(), nullptr, true), cfg(1024, 4));
  EXPECT_EQ(t->lastSource(), TuneSource::Memory);
  EXPECT_EQ(timed_, 3);
  // Another key is tuned on its own.
  ms_[cfg(4096, 8, 3).str()] = 0.5;
  EXPECT_EQ(t->choose({2048}, runner(), nullptr, true), cfg(4096, 8, 3));
  EXPECT_EQ(t->benchmarks(), 2);
}

TEST_F(AutotuneTest, LaunchRunsTheChoiceOnceMore) {
  auto t = tuner();
  t->launch({8}, runner(), nullptr, true);
  EXPECT_EQ(current_, cfg(1024, 4).str());
  int before = runs_;
  t->launch({8}, runner(), nullptr, true);
  EXPECT_EQ(runs_, before + 1); // the launch itself, nothing measured
}

TEST_F(AutotuneTest, FailingCandidatesAreSkipped) {
  failing_ = {cfg(1024, 4).str()};
  testing::internal::CaptureStderr();
  setenv("TILE_AUTOTUNE_VERBOSE", "1", 1);
  auto t = tuner();
  EXPECT_EQ(t->choose({1}, runner(), nullptr, true), cfg(4096, 8, 3));
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find(cfg(1024, 4).str()), std::string::npos) << err;
  EXPECT_NE(err.find("skipped: too much shared memory"), std::string::npos) << err;
  EXPECT_NE(err.find("chose " + cfg(4096, 8, 3).str()), std::string::npos) << err;
}

// A candidate that does not fit is skipped; a compiler bug met while trying one is not a reason to
// skip it: the InternalError (and its bug report) reaches the caller.
TEST_F(AutotuneTest, InternalErrorOfACandidateIsNotASkip) {
  auto t = tuner();
  auto buggy = [this](const TuneConfig &c, CUstream) {
    current_ = c.str();
    if (c == cfg(1024, 4)) throw tile::InternalError("tile internal error: planted (this is a bug; please report)");
  };
  EXPECT_THROW(t->choose({1}, buggy, nullptr, true), tile::InternalError);
}

TEST_F(AutotuneTest, QuietUnlessVerbose) {
  testing::internal::CaptureStderr();
  auto t = tuner();
  t->choose({1}, runner(), nullptr, true);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST_F(AutotuneTest, AllCandidatesFailingIsAnErrorNamingEach) {
  failing_ = {cfg(256, 2).str(), cfg(1024, 4).str(), cfg(4096, 8, 3).str()};
  auto t = tuner();
  try {
    t->choose({1}, runner(), nullptr, true);
    FAIL() << "expected an error";
  } catch (const Error &e) {
    std::string what = e.what();
    for (const TuneConfig &c : configs_) EXPECT_NE(what.find(c.str()), std::string::npos) << what;
    EXPECT_NE(what.find("toy"), std::string::npos) << what;
  }
  EXPECT_TRUE(entries().empty()); // nothing remembered
}

TEST_F(AutotuneTest, NoGpuUsesTheDefaultUnmeasured) {
  auto t = tuner();
  EXPECT_EQ(t->choose({1}, runner(), nullptr, false), configs_[0]);
  EXPECT_EQ(t->lastSource(), TuneSource::Default);
  EXPECT_EQ(timed_, 0);
  EXPECT_EQ(runs_, 0);
  EXPECT_TRUE(entries().empty());
  // A declared default.
  AutotuneOptions o;
  o.cacheDir = dir_;
  o.defaultConfig = 2;
  Autotuner d("toy", "s", configs_, "c", o);
  EXPECT_EQ(d.choose({1}, runner(), nullptr, false), configs_[2]);
  o.defaultConfig = 3;
  EXPECT_THROW(Autotuner("toy", "s", configs_, "c", o), tile::ArgumentError);
}

TEST_F(AutotuneTest, OneCandidateIsNotMeasured) {
  AutotuneOptions o;
  o.cacheDir = dir_;
  o.deviceName = "Test GPU";
  o.timer = [this](const std::function<void()> &, CUstream) { return double(++timed_); };
  Autotuner t("toy", "s", {cfg(64, 4)}, "c", o);
  EXPECT_EQ(t.choose({1}, runner(), nullptr, true), cfg(64, 4));
  EXPECT_EQ(timed_, 0);
  EXPECT_TRUE(entries().empty());
}

TEST_F(AutotuneTest, BadCandidateListsAreRejected) {
  EXPECT_THROW(Autotuner("toy", "s", {}, "c"), tile::ArgumentError);
  EXPECT_THROW(Autotuner("toy", "s", {cfg(1, 4), cfg(1, 4)}, "c"), tile::ArgumentError);
}

// ---------------------------------------------------------------- the disk

TEST_F(AutotuneTest, DiskEntryIsReusedByAFreshTuner) {
  auto first = tuner();
  const TuneConfig chosen = first->choose({64, 64}, runner(), nullptr, true);
  const std::string path = first->entryPath({64, 64}, "Test GPU");
  ASSERT_TRUE(fs::exists(path)) << path;
  EXPECT_EQ(fs::path(path).parent_path(), fs::path(dir_));
  // Only the entry: the temp file was renamed.
  EXPECT_EQ(entries().size(), 1u);

  // The stored choice wins even where the times would now say otherwise.
  ms_[cfg(256, 2).str()] = 0.1;
  timed_ = 0;
  auto second = tuner();
  EXPECT_EQ(second->choose({64, 64}, runner(), nullptr, true), chosen);
  EXPECT_EQ(second->lastSource(), TuneSource::Disk);
  EXPECT_EQ(second->benchmarks(), 0);
  EXPECT_EQ(timed_, 0);

  // What is on disk: a DiskCache entry holding the readable record.
  std::optional<std::string> payload = DiskCache(dir_).load(fs::path(path).stem().string());
  ASSERT_TRUE(payload);
  std::string why;
  std::optional<TuneEntry> e = decodeTuneEntry(*payload, &why);
  ASSERT_TRUE(e) << why;
  EXPECT_EQ(e->kernel, "toy");
  EXPECT_EQ(e->device, "Test GPU");
  EXPECT_EQ(e->codeId, "code-1");
  EXPECT_EQ(e->key, (TuneKey{64, 64}));
  EXPECT_EQ(e->config, chosen);
  EXPECT_DOUBLE_EQ(e->ms, 1.0); // the winner's time in ms_ when it was tuned
}

TEST_F(AutotuneTest, OtherDeviceOrCodeIsTunedAgain) {
  tuner("code-1", "GPU A")->choose({1}, runner(), nullptr, true);
  timed_ = 0;
  auto otherDevice = tuner("code-1", "GPU B");
  otherDevice->choose({1}, runner(), nullptr, true);
  EXPECT_EQ(otherDevice->lastSource(), TuneSource::Benchmark);
  auto otherCode = tuner("code-2", "GPU A");
  otherCode->choose({1}, runner(), nullptr, true);
  EXPECT_EQ(otherCode->lastSource(), TuneSource::Benchmark);
  EXPECT_EQ(timed_, 6);
  EXPECT_EQ(entries().size(), 3u);
}

TEST_F(AutotuneTest, CorruptEntryIsIgnoredWithOneWarningAndRetuned) {
  const std::string path = tuner()->entryPath({5}, "Test GPU");
  tuner()->choose({5}, runner(), nullptr, true);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-3, std::ios::end);
    f.write("zzz", 3); // the checksum no longer matches
  }
  testing::internal::CaptureStderr();
  auto t = tuner();
  EXPECT_EQ(t->choose({5}, runner(), nullptr, true), cfg(1024, 4));
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find(path), std::string::npos) << err;
  EXPECT_NE(err.find("re-tuning"), std::string::npos) << err;
  EXPECT_EQ(t->lastSource(), TuneSource::Benchmark);
  // Re-tuned and stored again: a fresh tuner reads it quietly.
  testing::internal::CaptureStderr();
  auto again = tuner();
  again->choose({5}, runner(), nullptr, true);
  EXPECT_EQ(again->lastSource(), TuneSource::Disk);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST_F(AutotuneTest, ForeignEntryIsIgnoredWithOneWarningAndOverwritten) {
  auto t = tuner();
  const std::string path = t->entryPath({7}, "Test GPU");
  // A well-formed entry at our path that records another kernel's choice (a copied file).
  TuneEntry foreign{"other_kernel", "f32,p16", "Test GPU", "code-1", {7}, cfg(256, 2), 0.1};
  DiskCache(dir_).store(fs::path(path).stem().string(), encodeTuneEntry(foreign));
  testing::internal::CaptureStderr();
  EXPECT_EQ(t->choose({7}, runner(), nullptr, true), cfg(1024, 4));
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find("other_kernel"), std::string::npos) << err;
  EXPECT_NE(err.find("re-tuning"), std::string::npos) << err;
  EXPECT_EQ(t->lastSource(), TuneSource::Benchmark);
  auto fresh = tuner();
  EXPECT_EQ(fresh->choose({7}, runner(), nullptr, true), cfg(1024, 4));
  EXPECT_EQ(fresh->lastSource(), TuneSource::Disk);
}

TEST_F(AutotuneTest, EntryNamingANonCandidateIsIgnored) {
  auto t = tuner();
  const std::string path = t->entryPath({9}, "Test GPU");
  TuneEntry stale{"toy", "f32,p16", "Test GPU", "code-1", {9}, cfg(999, 4), 0.1};
  DiskCache(dir_).store(fs::path(path).stem().string(), encodeTuneEntry(stale));
  testing::internal::CaptureStderr();
  EXPECT_EQ(t->choose({9}, runner(), nullptr, true), cfg(1024, 4));
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("not a candidate"), std::string::npos) << err;
}

TEST_F(AutotuneTest, ForceRecompileRetunes) {
  tuner()->choose({3}, runner(), nullptr, true);
  setenv("TILE_FORCE_RECOMPILE", "1", 1);
  auto t = tuner();
  t->choose({3}, runner(), nullptr, true);
  EXPECT_EQ(t->lastSource(), TuneSource::Benchmark);
}

TEST_F(AutotuneTest, DiskCacheCanBeTurnedOff) {
  AutotuneOptions o;
  o.cacheDir = dir_;
  o.useDiskCache = false;
  o.deviceName = "Test GPU";
  o.timer = [this](const std::function<void()> &run, CUstream) {
    run();
    return ms_.at(current_);
  };
  Autotuner t("toy", "s", configs_, "c", o);
  EXPECT_EQ(t.choose({1}, runner(), nullptr, true), cfg(1024, 4));
  EXPECT_TRUE(entries().empty());
}

// ---------------------------------------------------------------- baked tables

TEST_F(AutotuneTest, BakedTableIsUsedWithoutMeasuring) {
  addTuneTable("# a comment\n"
               "toy\tf32,p16\tTest GPU\t11\t" +
               cfg(4096, 8, 3).str() +
               "\n"
               "toy\tf32,p16\t*\t12\t" +
               cfg(256, 2).str() +
               "\n"
               "toy\tf32,p16\tOther GPU\t12\t" +
               cfg(4096, 8, 3).str() + "\n");
  auto t = tuner();
  EXPECT_EQ(t->choose({11}, runner(), nullptr, true), cfg(4096, 8, 3));
  EXPECT_EQ(t->lastSource(), TuneSource::Baked);
  EXPECT_EQ(t->choose({12}, runner(), nullptr, true), cfg(256, 2)); // the '*' line
  EXPECT_EQ(t->lastSource(), TuneSource::Baked);
  EXPECT_EQ(timed_, 0);
  EXPECT_TRUE(entries().empty());
  t->choose({13}, runner(), nullptr, true); // not in the table
  EXPECT_EQ(t->lastSource(), TuneSource::Benchmark);
}

TEST_F(AutotuneTest, BakedConfigThatIsNoCandidateIsIgnored) {
  addTuneTable("toy\tf32,p16\t*\t11\tBLOCK=7,warps=4\n");
  auto t = tuner();
  EXPECT_EQ(t->choose({11}, runner(), nullptr, true), cfg(1024, 4));
  EXPECT_EQ(t->lastSource(), TuneSource::Benchmark);
}

TEST_F(AutotuneTest, MalformedTableIsAnErrorNamingTheLine) {
  for (const char *bad :
       {"toy\tf32\t*\t11\n", "toy\tf32\t*\tx\twarps=4\n", "toy\tf32\t*\t1\tBLOCK=1\n", "\t\t\t\t\n"}) {
    try {
      addTuneTable(std::string("# ok\n") + bad, "my table");
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find("my table line 2"), std::string::npos) << e.what();
    }
  }
}

TEST_F(AutotuneTest, TableFromTheEnvironment) {
  const std::string file = dir_ + "/table.txt";
  std::ofstream(file) << "toy\tf32,p16\tTest GPU\t21\t" << cfg(256, 2).str() << "\n";
  setenv("TILE_AUTOTUNE_TABLE", file.c_str(), 1);
  clearTuneTables(); // read the variable again
  auto t = tuner();
  EXPECT_EQ(t->choose({21}, runner(), nullptr, true), cfg(256, 2));
  EXPECT_EQ(t->lastSource(), TuneSource::Baked);
}

TEST_F(AutotuneTest, ExportedTableRoundTrips) {
  ms_[cfg(4096, 8, 3).str()] = 0.25;
  tuner()->choose({31, 32}, runner(), nullptr, true); // chose cfg(4096, 8, 3)
  std::string table = exportTuneTable(dir_);
  EXPECT_NE(table.find("toy\tf32,p16\tTest GPU\t31,32\t" + cfg(4096, 8, 3).str() + "\n"), std::string::npos) << table;
  // Baked from the export, a tuner on an empty cache needs no measurement.
  fs::remove_all(dir_);
  fs::create_directories(dir_);
  addTuneTable(table);
  auto t = tuner();
  EXPECT_EQ(t->choose({31, 32}, runner(), nullptr, true), cfg(4096, 8, 3));
  EXPECT_EQ(t->lastSource(), TuneSource::Baked);
  // The C++ form embeds the same text.
  std::string source = tuneTableSource(table);
  EXPECT_NE(source.find("tile::rt::addTuneTable(R\"tiletable(" + table + ")tiletable\""), std::string::npos) << source;
}
