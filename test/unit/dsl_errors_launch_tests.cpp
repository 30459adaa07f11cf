// Must-fail tests, part 3: what a launch asks for. num_warps, num_stages, the arguments
// against the parameters, shared memory against the target: each an error naming the line
// of the kernel's definition (tile::kernel(...)), where the user chose them.
#include "dsl_error_expect.h"

#include <gtest/gtest.h>

#include <string>

using namespace tile;
using tile::test::errorOf;
using tile::test::traceError;

namespace {

constexpr tile::DeviceAddress kAligned{0x10000};

void expectError(const std::string &msg, int line, const std::string &word) {
  tile::test::expectErrorIn("dsl_errors_launch_tests.cpp", msg, line, word);
}

/// Defines the kernel on the caller's line (the line every error below names).
#define DEFINE_ADD(var, line)                                                                                          \
  line = __LINE__;                                                                                                     \
  auto var = kernel("add", [](Ptr<float> x, I32 n, Const<int> BLOCK) {                                                 \
    Value offs = arange(0, BLOCK);                                                                                     \
    store(x + offs, load(x + offs, offs < n) + 1.0f, offs < n);                                                        \
  })

} // namespace

TEST(DslLaunchErrors, NumWarpsNotAPowerOfTwo) {
  int line;
  DEFINE_ADD(k, line);
  expectError(traceError(k, k.specialize(3, kAligned, 100, 64)), line,
              "kernel 'add': num_warps must be a power of two from 1 to 32, got 3");
}

TEST(DslLaunchErrors, NumWarpsTooLarge) {
  int line;
  DEFINE_ADD(k, line);
  expectError(traceError(k, k.specialize(64, kAligned, 100, 64)), line,
              "num_warps must be a power of two from 1 to 32, got 64");
}

TEST(DslLaunchErrors, NumStagesOutOfRange) {
  int line;
  DEFINE_ADD(k, line);
  Specialization spec = k.specialize(4, kAligned, 100, 64);
  spec.numStages = 9;
  expectError(traceError(k, spec), line, "num_stages must be 1..8 (or 0: the default), got 9");
}

TEST(DslLaunchErrors, TooFewArguments) {
  int line;
  DEFINE_ADD(k, line);
  Specialization spec = k.specialize(4, kAligned, 100, 64);
  spec.args.pop_back();
  expectError(traceError(k, spec), line, "kernel 'add' has 3 parameters, the specialisation gives 2");
}

TEST(DslLaunchErrors, ArgumentOfTheWrongKind) {
  int line;
  DEFINE_ADD(k, line);
  Specialization spec = k.specialize(4, kAligned, 100, 64);
  spec.args[1].kind = ArgKind::Ptr;
  expectError(traceError(k, spec), line, "kernel 'add': parameter 1 is an I32, the specialisation gives a Ptr<T>");
}

// The launch path (here the CPU executor's) checks the same before anything runs.
TEST(DslLaunchErrors, LaunchWithTheWrongArguments) {
  int line;
  DEFINE_ADD(k, line);
  Specialization spec = k.specialize(4, kAligned, 100, 64);
  spec.args[0].kind = ArgKind::F32;
  float x[64] = {};
  uint64_t xp = reinterpret_cast<uint64_t>(x);
  int32_t n = 64;
  void *params[] = {&xp, &n};
  LaunchOptions cpu;
  cpu.executor = Executor::CPU;
  expectError(errorOf([&] { k.launchSpecialized(Grid(1), cpu, spec, params); }), line,
              "parameter 0 is a Ptr<T>, the specialisation gives an F32");
}

TEST(DslLaunchErrors, KernelNameNotAnIdentifier) {
  int line = 0;
  std::string msg = errorOf([&] {
    line = __LINE__ + 1; // the statement below
    auto k = kernel("my-kernel", [](Ptr<float> p) { (void)p; });
  });
  expectError(msg, line, "the name 'my-kernel' must be a C identifier");
}

// 128x128x64 f16 tiles in 4 pipeline stages stage 128 KiB of operands: more than an sm_86
// block may have (99 KiB). Reported before the backend runs, at the kernel's definition.
TEST(DslLaunchErrors, TooMuchSharedMemoryForTheTarget) {
  int line;
  line = __LINE__ + 1; // the statement below
  auto mm = kernel("big_tiles", [](Ptr<f16> a, Ptr<f16> b, Ptr<float> c, I32 k) {
    Value rm = arange(0, 128), rn = arange(0, 128), rk = arange(0, 64);
    Value acc = for_range(0, k, 64, zeros({128, 128}, DType::f32), [&](Value k0, Value acc) {
      return dot(load(a + col(rm) * k + row(k0 + rk)), load(b + col(k0 + rk) * 128 + row(rn)), acc);
    });
    store(c + col(rm) * 128 + row(rn), acc);
  });
  Specialization spec = mm.specialize(4, kAligned, kAligned, kAligned, 4096);
  spec.numStages = 4;
  CompileRequest req;
  req.sm = 86;
  req.useDiskCache = false;
  std::string msg = errorOf([&] { mm.compile(spec, req); });
  expectError(msg, line, "kernel 'big_tiles' needs ");
  EXPECT_NE(msg.find("bytes of shared memory per block, sm_86 allows at most 101376"), std::string::npos) << msg;
}
