// The CPU executor's JIT (compiler/lib/CPU/HostJit.h): the target CPU is a choice, and
// generated code links only against the provided symbols, so code that would need a
// helper some hosts lack fails on every host, naming the helper and the kernel. With
// TILE_TEST_EXPECT_CPU set, every test of the binary checks the JIT's choice of CPU.
#include "HostJit.h"

#include "tile/Compiler.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace {

using tile::cpu::JitKernel;

/// Whether the JIT compiles DSL kernels for `expected`: the CPU it resolves with no request
/// (what CpuCompiler asks: TILE_CPU_TARGET, else the host) and its target machine's CPU.
::testing::AssertionResult jitChoosesCpu(const std::string &expected) {
  const char *env = std::getenv("TILE_CPU_TARGET");
  std::string chosen;
  try {
    chosen = tile::cpu::resolveCpuTarget("");
  } catch (const std::exception &e) { return ::testing::AssertionFailure() << e.what(); }
  std::string machine = chosen == "host" ? "host" : tile::cpu::targetMachineBuilder(chosen).getCPU();
  if (chosen == expected && machine == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected code for CPU '" << expected << "', the JIT chose '" << chosen
                                       << "' (target machine CPU '" << machine << "', TILE_CPU_TARGET "
                                       << (env ? "= " + std::string(env) : "unset") << ")";
}

/// TILE_TEST_EXPECT_CPU=<cpu> (ctest sets it on the x86-64-baseline.* tests, with
/// TILE_CPU_TARGET: test/unit/cpu.cmake): every test of the process fails unless the JIT
/// chooses that CPU, so a baseline test never passes on code compiled for the host.
class ExpectedCpuEnvironment : public ::testing::Environment {
public:
  void SetUp() override {
    if (const char *expected = std::getenv("TILE_TEST_EXPECT_CPU"); expected && *expected) {
      EXPECT_TRUE(jitChoosesCpu(expected)) << "(TILE_TEST_EXPECT_CPU=" << expected << ")";
    }
  }
};
[[maybe_unused]] ::testing::Environment *const expectedCpu =
    ::testing::AddGlobalTestEnvironment(new ExpectedCpuEnvironment);

/// Parses `ir`, wraps @k and links it for `target`.
JitKernel link(const std::string &ir, const std::string &target) {
  static const bool initialised = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialised;
  auto context = std::make_unique<llvm::LLVMContext>();
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(ir, error, *context);
  if (!module) throw std::runtime_error("test IR does not parse: " + error.getMessage().str());
  auto tm = tile::cpu::targetMachineBuilder(target).createTargetMachine();
  if (!tm) throw std::runtime_error(llvm::toString(tm.takeError()));
  module->setDataLayout((*tm)->createDataLayout());
  module->setTargetTriple((*tm)->getTargetTriple());
  std::string entry = tile::cpu::addPackedWrapper(*module, "k");
  return tile::cpu::linkKernel(std::move(module), std::move(context), entry, "k", target, {});
}

/// out[0] = exp(x) * 2 through libm: a provided symbol.
const char *kExpKernel = R"(
declare float @expf(float)
define void @k(ptr %out, float %x) {
  %e = call float @expf(float %x)
  %r = fmul float %e, 2.0
  store float %r, ptr %out
  ret void
}
)";

float runExp(const JitKernel &kernel, float x) {
  float out = std::nanf("");
  float *outPtr = &out;
  void *args[] = {&outPtr, &x};
  kernel.entry(args);
  return out;
}

TEST(CpuJit, ProvidedSymbolsLinkOnEveryLevelThisHostRuns) {
  int ran = 0;
  for (const char *target : {"host", "x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"}) {
    std::string resolved;
    try {
      resolved = tile::cpu::resolveCpuTarget(target);
    } catch (const tile::ArgumentError &e) {
      // Only a level this CPU cannot run may be refused, and the refusal names a feature.
      EXPECT_NE(std::string(target), "host");
      EXPECT_NE(std::string(target), "x86-64");
      EXPECT_NE(std::string(e.what()).find("which this CPU lacks"), std::string::npos) << e.what();
      continue;
    }
    EXPECT_EQ(resolved, target);
    JitKernel kernel = link(kExpKernel, resolved);
    EXPECT_FLOAT_EQ(runExp(kernel, 1.5f), 2.f * std::exp(1.5f)) << target;
    ++ran;
  }
  EXPECT_GE(ran, 2);
}

TEST(CpuJit, AnUnprovidedHelperIsRefusedByName) {
  const char *ir = R"(
declare bfloat @__truncsfbf2(float)
define void @k(ptr %out, float %x) {
  %b = call bfloat @__truncsfbf2(float %x)
  store bfloat %b, ptr %out
  ret void
}
)";
  for (const char *target : {"host", "x86-64"}) {
    try {
      link(ir, target);
      FAIL() << "linked a call to __truncsfbf2 for " << target;
    } catch (const tile::compiler::InternalError &e) {
      std::string message = e.what();
      EXPECT_NE(message.find("kernel 'k'"), std::string::npos) << message;
      EXPECT_NE(message.find("calls '__truncsfbf2'"), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << "not one line: " << message;
    }
  }
}

TEST(CpuJit, TargetNamesAreChecked) {
  try {
    tile::cpu::resolveCpuTarget("pentium4");
    FAIL() << "accepted an unknown target";
  } catch (const tile::ArgumentError &e) {
    EXPECT_NE(std::string(e.what()).find("TILE_CPU_TARGET must be host, x86-64"), std::string::npos) << e.what();
  }
  EXPECT_EQ(tile::cpu::resolveCpuTarget("x86-64"), "x86-64");
  // Empty: the environment decides, else the host.
  const char *env = std::getenv("TILE_CPU_TARGET");
  EXPECT_EQ(tile::cpu::resolveCpuTarget(""), env && *env ? std::string(env) : "host");
}

/// The check behind TILE_TEST_EXPECT_CPU tells the two choices apart.
TEST(CpuJit, ExpectedCpuCheckSeesTheChoice) {
  const char *saved = std::getenv("TILE_CPU_TARGET");
  const std::string before = saved ? saved : "";
  setenv("TILE_CPU_TARGET", "x86-64", 1);
  EXPECT_TRUE(jitChoosesCpu("x86-64"));
  EXPECT_FALSE(jitChoosesCpu("host"));
  unsetenv("TILE_CPU_TARGET");
  EXPECT_TRUE(jitChoosesCpu("host"));
  EXPECT_FALSE(jitChoosesCpu("x86-64"));
  if (saved) setenv("TILE_CPU_TARGET", before.c_str(), 1);
}

} // namespace
