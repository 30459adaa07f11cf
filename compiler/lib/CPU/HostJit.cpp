//===- HostJit.cpp - LLVM ORC JIT of the CPU executor, for a chosen x86-64 CPU ===//
#include "HostJit.h"

#include "tile/Compiler.h"
#include "tile/runtime/EnvRegistry.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/Error.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <cstdlib>
#include <mutex>
#include <stdexcept>

namespace tile::cpu {

namespace {

/// The x86-64 micro-architecture levels (psABI), each with the host features checked
/// before code for it runs here: the ones LLVM would use for our code.
struct Level {
  const char *name;
  std::vector<const char *> features;
};
const std::vector<Level> &levels() {
  static const std::vector<Level> all = {
      {"x86-64", {}},
      {"x86-64-v2", {"sse4.2", "popcnt", "ssse3"}},
      {"x86-64-v3", {"sse4.2", "popcnt", "ssse3", "avx2", "fma", "f16c", "bmi2", "lzcnt", "movbe"}},
      {"x86-64-v4",
       {"sse4.2", "popcnt", "ssse3", "avx2", "fma", "f16c", "bmi2", "lzcnt", "movbe", "avx512f", "avx512bw", "avx512cd",
        "avx512dq", "avx512vl"}},
  };
  return all;
}

/// What generated code may call in the process: the C library's memory functions (LLVM's
/// memcpy/memset intrinsics) and libm (LLVM's math intrinsics without an instruction on
/// the target: expf, logf, fmodf, and floorf & co. below SSE4.1; sincosf where LLVM fuses a
/// sin and a cos of one argument). Every glibc has them, whatever the CPU.
const llvm::StringSet<> &providedSymbols() {
  static const llvm::StringSet<> set = [] {
    llvm::StringSet<> s{"memcpy", "memmove", "memset"};
    for (const char *f :
         {"exp",   "exp2",  "expm1", "log",      "log2",      "log10", "log1p",     "pow",   "sqrt",
          "cbrt",  "sin",   "cos",   "tan",      "asin",      "acos",  "atan",      "atan2", "sinh",
          "cosh",  "tanh",  "asinh", "acosh",    "atanh",     "erf",   "erfc",      "fmod",  "remainder",
          "floor", "ceil",  "trunc", "round",    "roundeven", "rint",  "nearbyint", "fma",   "fmin",
          "fmax",  "ldexp", "frexp", "copysign", "sincos"}) {
      s.insert(f);
      s.insert(std::string(f) + "f");
    }
    return s;
  }();
  return set;
}

[[noreturn]] void fail(const std::string &what) { throw compiler::InternalError(what); }

} // namespace

std::string resolveCpuTarget(const std::string &requested) {
  std::string name = requested;
  if (name.empty())
    if (const char *e = tile::rt::readEnv("TILE_CPU_TARGET")) name = e;
  if (name.empty() || name == "host") return "host";
  for (const Level &level : levels()) {
    if (name != level.name) continue;
    llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
    for (const char *f : level.features)
      if (!host.lookup(f))
        throw ArgumentError("tile: TILE_CPU_TARGET=" + name + " needs the CPU feature '" + f +
                            "', which this CPU lacks");
    return name;
  }
  throw ArgumentError("tile: TILE_CPU_TARGET must be host, x86-64, x86-64-v2, x86-64-v3 or x86-64-v4, got '" + name +
                      "'");
}

llvm::orc::JITTargetMachineBuilder targetMachineBuilder(const std::string &target) {
  llvm::orc::JITTargetMachineBuilder builder = [&] {
    if (target != "host") return llvm::orc::JITTargetMachineBuilder(llvm::Triple(llvm::sys::getProcessTriple()));
    auto host = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!host)
      fail("tile: internal compiler error (CPU executor) detecting the host: " + llvm::toString(host.takeError()));
    return std::move(*host);
  }();
  if (target != "host") builder.setCPU(target); // the level's features come with the CPU name
  builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  return builder;
}

std::string addPackedWrapper(llvm::Module &m, const std::string &kernel) {
  llvm::Function *f = m.getFunction(kernel);
  if (!f || f->isDeclaration() || !f->getReturnType()->isVoidTy())
    fail("tile: internal compiler error (CPU executor): kernel function '" + kernel +
         "' is missing or returns a value (this is a bug)");
  llvm::LLVMContext &ctx = m.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(ctx);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false);
  auto *wrapper = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, "_tile_packed_" + kernel, m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", wrapper));
  std::vector<llvm::Value *> args;
  for (llvm::Argument &a : f->args()) {
    llvm::Value *slot = b.CreateConstInBoundsGEP1_64(ptr, wrapper->getArg(0), a.getArgNo());
    args.push_back(b.CreateLoad(a.getType(), b.CreateLoad(ptr, slot)));
  }
  b.CreateCall(f, args);
  b.CreateRetVoid();
  return wrapper->getName().str();
}

bool isProvidedSymbol(llvm::StringRef symbol) { return providedSymbols().contains(symbol); }

JitKernel linkKernel(std::unique_ptr<llvm::Module> module, std::unique_ptr<llvm::LLVMContext> context,
                     const std::string &entryName, const std::string &kernel, const std::string &target,
                     const std::vector<std::pair<std::string, void *>> &extraSymbols) {
  // Symbols the code asked for that are not provided: the error names them.
  auto refused = std::make_shared<std::vector<std::string>>();
  auto linkMutex = std::make_shared<std::mutex>();
  auto allow = [refused, linkMutex](const llvm::orc::SymbolStringPtr &name) {
    if (isProvidedSymbol(*name)) return true;
    std::lock_guard<std::mutex> lock(*linkMutex);
    refused->push_back((*name).str());
    return false;
  };
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(targetMachineBuilder(target))
                 .setProcessSymbolsJITDylibSetup([allow](llvm::orc::LLJIT &j) -> llvm::Expected<llvm::orc::JITDylibSP> {
                   auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                       j.getDataLayout().getGlobalPrefix(), allow);
                   if (!process) return process.takeError();
                   llvm::orc::JITDylib &dylib = j.getExecutionSession().createBareJITDylib("<process symbols>");
                   dylib.addGenerator(std::move(*process));
                   return &dylib;
                 })
                 .create();
  if (!jit) fail("tile: internal compiler error (CPU executor) creating the JIT: " + llvm::toString(jit.takeError()));
  llvm::orc::JITDylib &dylib = (*jit)->getMainJITDylib();
  llvm::orc::SymbolMap own;
  for (const auto &[name, address] : extraSymbols)
    own[(*jit)->mangleAndIntern(name)] = {llvm::orc::ExecutorAddr::fromPtr(address), llvm::JITSymbolFlags::Exported};
  if (llvm::Error e = dylib.define(llvm::orc::absoluteSymbols(std::move(own))))
    fail("tile: internal compiler error (CPU executor): " + llvm::toString(std::move(e)));

  // Link errors also go to the session's reporter (stderr by default); keep them instead.
  auto reported = std::make_shared<std::string>();
  (*jit)->getExecutionSession().setErrorReporter([reported, linkMutex](llvm::Error e) {
    std::lock_guard<std::mutex> lock(*linkMutex);
    *reported += llvm::toString(std::move(e));
  });

  if (llvm::Error e = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context))))
    fail("tile: internal compiler error (CPU executor) adding kernel '" + kernel +
         "': " + llvm::toString(std::move(e)));
  auto address = (*jit)->lookup(entryName);
  if (!address) {
    std::string error = llvm::toString(address.takeError());
    std::lock_guard<std::mutex> lock(*linkMutex);
    if (!refused->empty())
      fail("tile: the CPU executor's code for kernel '" + kernel + "' (target " + target + ") calls '" +
           refused->front() + "', which the executor does not provide (this is a bug)");
    fail("tile: internal compiler error (CPU executor) linking kernel '" + kernel + "' (target " + target +
         "): " + (reported->empty() ? error : *reported) + " (this is a bug)");
  }
  return {std::move(*jit), address->toPtr<void (*)(void **)>()};
}

} // namespace tile::cpu
