// The CPU executor's JIT (compiler/lib/CPU/HostJit.h): the target CPU is a choice, and
// generated code links only against the provided symbols, so code that would need a
// helper some hosts lack fails on every host, naming the helper and the kernel.
#include "HostJit.h"

#include "tile/Pipeline.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace {

using tile::cpu::JitKernel;

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

} // namespace
