// TILE_DUMP_DIR and TILE_PRINT_IR_AFTER_ALL on a user's own kernel: a
// kernel traced for the CPU executor dumps every GPU stage (for TILE_DUMP_SM, default sm_90a)
// besides the CPU lowering's, as <kernel>-<hash>.<stage>; the tile IR written compiles again
// in tilec to the same PTX; files the dump did not write are never replaced.
#include "tile/tile.h"

#include "tile/Error.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace tile;
namespace fs = std::filesystem;

namespace {

auto makeAxpy() {
  return tile::kernel("dump_axpy", [](Ptr<float> x, Ptr<float> y, I32 n, F32 a, Const<int> BLOCK) {
    auto offs = program_id(0) * BLOCK + arange(0, BLOCK);
    auto mask = offs < n;
    store(y + offs, load(x + offs, mask) * a + load(y + offs, mask), mask);
  });
}

LaunchOptions onCpu() {
  LaunchOptions o;
  o.executor = Executor::CPU;
  return o;
}

/// Runs y = 2 x + y on the CPU executor with a fresh kernel object (so it is traced and
/// compiled again) and checks the result.
void runAxpyOnCpu() {
  std::vector<float> x(300, 1.5f), y(300, 1.0f);
  makeAxpy().launch({3}, onCpu(), x.data(), y.data(), 300, 2.0f, 128);
  for (float v : y) ASSERT_EQ(v, 4.0f);
}

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The files of a dump directory by stage ("ptx", "tile.mlir", "cpu.ll"), for files named
/// <kernel>-<16 hex digits>.<stage>; anything else under `other`.
struct DumpListing {
  std::map<std::string, std::vector<fs::path>> byStage;
  std::vector<std::string> other;
};
DumpListing listDump(const fs::path &dir, const std::string &kernel) {
  DumpListing l;
  const std::regex name(kernel + "-([0-9a-f]{16})\\.(.+)");
  for (const fs::directory_entry &e : fs::directory_iterator(dir)) {
    std::smatch m;
    std::string file = e.path().filename().string();
    if (std::regex_match(file, m, name)) l.byStage[m[2]].push_back(e.path());
    else l.other.push_back(file);
  }
  return l;
}

bool cudaToolExists(const char *tool) {
  std::string cmd = std::string("command -v ") + tool + " >/dev/null 2>&1 || test -x /usr/local/cuda/bin/" + tool;
  return std::system(cmd.c_str()) == 0;
}

/// stdout of a shell command and its exit status.
std::pair<std::string, int> runCommand(const std::string &cmd) {
  std::FILE *p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  for (size_t n; p && (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  int status = p ? pclose(p) : -1;
  return {out, status};
}

/// A private kernel cache for the suite and a dump directory per test; the variables are
/// cleared afterwards.
class DslDump : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    cache_ = fs::temp_directory_path() / ("tile-dump-test-cache-" + std::to_string(getpid()));
    fs::create_directories(cache_);
    setenv("TILE_CACHE_DIR", cache_.c_str(), 1); // before the disk cache's first use reads it
  }
  static void TearDownTestSuite() { fs::remove_all(cache_); }

  void SetUp() override {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() / ("tile-dump-test-" + std::to_string(getpid()) + "-" + info->name());
    fs::remove_all(root_);
    dump_ = root_ / "dump";
    setenv("TILE_DUMP_DIR", dump_.c_str(), 1);
    unsetenv("TILE_DUMP_SM");
    unsetenv("TILE_PRINT_IR_AFTER_ALL");
  }
  void TearDown() override {
    unsetenv("TILE_DUMP_DIR");
    unsetenv("TILE_DUMP_SM");
    unsetenv("TILE_PRINT_IR_AFTER_ALL");
    fs::remove_all(root_);
  }
  fs::path root_, dump_;
  static fs::path cache_;
};
fs::path DslDump::cache_;

} // namespace

TEST_F(DslDump, CpuTracedKernelWritesEveryGpuStageAndTheCpuOnes) {
  runAxpyOnCpu();
  DumpListing l = listDump(dump_, "dump_axpy");
  EXPECT_TRUE(l.other.empty()) << "stray file (a temporary left behind?): " << l.other.front();
  std::vector<std::string> stages = {"tile.mlir", "opt.mlir", "llvm.mlir", "ll", "ptx", "cpu.mlir", "cpu.ll"};
  bool ptxas = cudaToolExists("ptxas");
  if (ptxas) stages.insert(stages.end(), {"regs", "cubin"});
  for (const std::string &s : stages) EXPECT_EQ(l.byStage[s].size(), 1u) << "stage " << s;
  if (::testing::Test::HasFailure()) return;
  // One hash for the GPU stages (one compilation), another for the CPU executor's.
  std::string gpuBase = l.byStage["ptx"][0].stem().string();
  EXPECT_EQ(l.byStage["tile.mlir"][0].filename().string(), gpuBase + ".tile.mlir");
  EXPECT_EQ(l.byStage["opt.mlir"][0].filename().string(), gpuBase + ".opt.mlir");
  EXPECT_NE(l.byStage["cpu.mlir"][0].filename().string(), gpuBase + ".cpu.mlir");

  std::string tileIR = readFile(l.byStage["tile.mlir"][0]);
  EXPECT_NE(tileIR.find("func.func @dump_axpy"), std::string::npos) << tileIR;
  EXPECT_NE(tileIR.find("dsl_dump_tests.cpp"), std::string::npos) << "the user's lines are kept:\n" << tileIR;
  EXPECT_NE(readFile(l.byStage["opt.mlir"][0]).find("#tile.blocked"), std::string::npos);
  std::string ptx = readFile(l.byStage["ptx"][0]);
  EXPECT_NE(ptx.find(".target sm_90a"), std::string::npos) << "TILE_DUMP_SM defaults to sm_90a";
  EXPECT_NE(ptx.find(".entry dump_axpy"), std::string::npos);
  std::string cpuIR = readFile(l.byStage["cpu.mlir"][0]);
  EXPECT_TRUE(cpuIR.find("vector<") != std::string::npos && cpuIR.find("tile.load") == std::string::npos)
      << "not the CPU lowering's IR:\n"
      << cpuIR;
  if (ptxas) EXPECT_NE(readFile(l.byStage["regs"][0]).find("registers"), std::string::npos);
  if (!cudaToolExists("nvdisasm") && !cudaToolExists("cuobjdump")) EXPECT_TRUE(l.byStage["sass"].empty());
}

#ifdef TILE_TILEC_PATH
TEST_F(DslDump, DumpedTileIRCompilesInTilecToTheSamePTX) {
  runAxpyOnCpu();
  DumpListing l = listDump(dump_, "dump_axpy");
  ASSERT_EQ(l.byStage["tile.mlir"].size(), 1u);
  ASSERT_EQ(l.byStage["ptx"].size(), 1u);
  unsetenv("TILE_DUMP_DIR"); // tilec writes nothing here
  auto [ptx, status] = runCommand(std::string(TILE_TILEC_PATH) + " --stage=ptx " + l.byStage["tile.mlir"][0].string());
  ASSERT_EQ(status, 0) << ptx;
  EXPECT_EQ(ptx, readFile(l.byStage["ptx"][0])) << "tilec on the dumped tile IR gives other PTX";
}
#endif

TEST_F(DslDump, DumpSmPicksTheTargetOfTheGpuStages) {
  setenv("TILE_DUMP_SM", "sm_80", 1);
  runAxpyOnCpu();
  DumpListing l = listDump(dump_, "dump_axpy");
  ASSERT_EQ(l.byStage["ptx"].size(), 1u);
  EXPECT_NE(readFile(l.byStage["ptx"][0]).find(".target sm_80\n"), std::string::npos);

  setenv("TILE_DUMP_SM", "hopper", 1);
  std::vector<float> x(4), y(4);
  try {
    makeAxpy().launch({1}, onCpu(), x.data(), y.data(), 4, 1.0f, 128);
    ADD_FAILURE() << "TILE_DUMP_SM=hopper was accepted";
  } catch (const ArgumentError &e) {
    EXPECT_NE(std::string(e.what()).find("TILE_DUMP_SM must name a GPU like sm_90a"), std::string::npos) << e.what();
  }
}

TEST_F(DslDump, FilesTheDumpDidNotWriteAreNeverReplaced) {
  runAxpyOnCpu();
  DumpListing first = listDump(dump_, "dump_axpy");
  ASSERT_EQ(first.byStage["cpu.mlir"].size(), 1u);
  ASSERT_EQ(first.byStage["cpu.ll"].size(), 1u);
  const fs::path foreign = first.byStage["cpu.mlir"][0];
  std::ofstream(foreign) << "someone else's file\n";
  std::string cpuLL = readFile(first.byStage["cpu.ll"][0]);

  ::testing::internal::CaptureStderr();
  runAxpyOnCpu(); // a new kernel object: traced, compiled and dumped again
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(readFile(foreign), "someone else's file\n");
  EXPECT_NE(err.find("tile: TILE_DUMP_DIR: " + foreign.string() +
                     " exists and is not this dump's file; left as "
                     "it is, this stage not written\n"),
            std::string::npos)
      << err;
  // Its own file from the first run (the same bytes) stays without a word.
  EXPECT_EQ(readFile(first.byStage["cpu.ll"][0]), cpuLL);
  EXPECT_EQ(err.find(".cpu.ll"), std::string::npos) << err;
  EXPECT_EQ(listDump(dump_, "dump_axpy").byStage.size(), first.byStage.size());
}

TEST_F(DslDump, GpuCompileDumpsAlsoWhenTheDiskCacheHoldsTheKernel) {
  auto axpy = makeAxpy();
  Specialization spec = axpy.specialize(4, DeviceAddress{0x10000}, DeviceAddress{0x10000}, 4096, 2.0f, 128);
  CompileRequest req;
  req.sm = 90;
  unsetenv("TILE_DUMP_DIR");
  axpy.compile(spec, req); // now in the disk cache
  setenv("TILE_DUMP_DIR", dump_.c_str(), 1);
  CompileResult r = axpy.compile(spec, req);
  EXPECT_FALSE(r.fromDiskCache) << "a dump needs the stages, which only a compilation produces";
  DumpListing l = listDump(dump_, "dump_axpy");
  ASSERT_EQ(l.byStage["ptx"].size(), 1u);
  EXPECT_EQ(readFile(l.byStage["ptx"][0]), r.kernel.ptx);
}

TEST_F(DslDump, PrintIrAfterAllPrintsTheCpuLowering) {
  unsetenv("TILE_DUMP_DIR");
  setenv("TILE_PRINT_IR_AFTER_ALL", "1", 1);
  ::testing::internal::CaptureStderr();
  runAxpyOnCpu();
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("IR Dump After"), std::string::npos) << err.substr(0, 2000);
  EXPECT_NE(err.find("(tile-lower-to-cpu)"), std::string::npos) << err.substr(0, 2000);
  EXPECT_NE(err.find("(convert-func-to-llvm)"), std::string::npos) << err.substr(0, 2000);
  EXPECT_FALSE(fs::exists(dump_)) << "nothing is dumped without TILE_DUMP_DIR";
}
