//===- PTXEmitter.cpp - LLVM IR, libdevice, optimisation, PTX -------------===//
#include "tile/Target/PTX.h"
#include "tile/Compiler.h"
#include "tile/runtime/EnvRegistry.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

using namespace tile::compiler;

static constexpr const char *kTriple = "nvptx64-nvidia-cuda";

static void initNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    // Shared-memory pointers 32 bits wide, as Triton emits them: the shared window is
    // 228 KiB, and 64-bit addresses made every shared address, and the wgmma descriptors
    // built from them, a pair of registers and a carry (IADD3 + IMAD.X + SHF.R.U64).
    auto &options = llvm::cl::getRegisteredOptions();
    auto it = options.find("nvptx-short-ptr");
    if (it == options.end()) throw InternalError("tile: LLVM's NVPTX target has no nvptx-short-ptr option");
    static_cast<llvm::cl::opt<bool> *>(it->second)->setValue(true);
  });
}

static const llvm::Target &nvptxTarget() {
  initNVPTX();
  std::string error;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(llvm::Triple(kTriple), error);
  if (!t) throw InternalError("tile: LLVM has no NVPTX target: " + error);
  return *t;
}

const std::vector<int> &tile::compiler::llvmPtxVersions() {
  static const std::vector<int> versions = [] {
    std::unique_ptr<llvm::MCSubtargetInfo> sti(nvptxTarget().createMCSubtargetInfo(llvm::Triple(kTriple), "sm_90", ""));
    std::vector<int> v;
    for (const llvm::SubtargetFeatureKV &kv : sti->getAllProcessorFeatures()) {
      llvm::StringRef key = kv.Key;
      int n = 0;
      if (key.consume_front("ptx") && !key.getAsInteger(10, n)) v.push_back(n);
    }
    std::sort(v.begin(), v.end());
    return v;
  }();
  return versions;
}

int tile::compiler::llvmMaxPtxVersion() {
  const std::vector<int> &v = llvmPtxVersions();
  return v.empty() ? 0 : v.back();
}

std::string tile::compiler::libdevicePath() {
  if (const char *p = tile::rt::readEnv("TILE_LIBDEVICE")) return p;
  std::string home = std::getenv("CUDA_HOME") ? std::getenv("CUDA_HOME") : "/usr/local/cuda";
  return home + "/nvvm/libdevice/libdevice.10.bc";
}

/// Links libdevice's definitions of the `__nv_*` functions the kernel calls; the
/// rest of libdevice is dropped (LinkOnlyNeeded) and what is linked is internalised.
static void linkLibdevice(llvm::Module &module) {
  bool needed = false;
  for (llvm::Function &f : module)
    if (f.isDeclaration() && f.getName().starts_with("__nv_")) needed = true;
  if (!needed) return;
  std::string path = libdevicePath();
  // Read once per process; each compile parses it lazily, materialising only the
  // functions the kernel calls (and their callees).
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<llvm::MemoryBuffer>> files;
  llvm::MemoryBufferRef bitcode;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto &file = files[path];
    if (!file) {
      auto buffer = llvm::MemoryBuffer::getFile(path);
      if (!buffer)
        throw InternalError("tile: cannot read libdevice at " + path + " (" + buffer.getError().message() +
                            "); set TILE_LIBDEVICE or CUDA_HOME");
      file = std::move(*buffer);
    }
    bitcode = file->getMemBufferRef();
  }
  auto lib = llvm::getLazyBitcodeModule(bitcode, module.getContext());
  if (!lib) throw InternalError("tile: cannot parse libdevice at " + path + ": " + llvm::toString(lib.takeError()));
  (*lib)->setTargetTriple(module.getTargetTriple());
  (*lib)->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(*lib), llvm::Linker::LinkOnlyNeeded,
                                [](llvm::Module &m, const llvm::StringSet<> &) {
                                  for (llvm::Function &f : m)
                                    if (!f.isDeclaration() && f.getName().starts_with("__nv_"))
                                      f.setLinkage(llvm::GlobalValue::InternalLinkage);
                                }))
    throw InternalError("tile: linking libdevice failed");
}

PTXOutput tile::compiler::emitPTX(mlir::ModuleOp module, const Target &target, bool keepLLVMIR) {
  mlir::registerBuiltinDialectTranslation(*module.getContext());
  mlir::registerLLVMDialectTranslation(*module.getContext());
  mlir::registerNVVMDialectTranslation(*module.getContext());

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = mlir::translateModuleToLLVMIR(module, llvmContext, "tile");
  if (!llvmModule) throw InternalError("tile: translation to LLVM IR failed (this is a bug)");

  std::string cpu = target.arch();
  std::string features = "+ptx" + std::to_string(target.ptxVersion);
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(nvptxTarget().createTargetMachine(
      llvm::Triple(kTriple), cpu, features, options, std::nullopt, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  llvmModule->setTargetTriple(llvm::Triple(kTriple));
  llvmModule->setDataLayout(machine->createDataLayout());
  // libdevice asks __nvvm_reflect("__CUDA_FTZ"): keep denormals (IEEE results).
  llvmModule->addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  linkLibdevice(*llvmModule);

  // The standard O3 pipeline with the NVPTX target's own passes (NVVMReflect among them).
  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(machine.get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    mpm.run(*llvmModule, mam);
  }

  PTXOutput out;
  if (keepLLVMIR) {
    llvm::raw_string_ostream os(out.llvmIR);
    llvmModule->print(os, nullptr);
  }
  llvm::SmallString<0> ptx;
  {
    llvm::raw_svector_ostream os(ptx);
    llvm::legacy::PassManager pm;
    if (machine->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
      throw InternalError("tile: NVPTX cannot emit assembly for " + cpu);
    pm.run(*llvmModule);
  }
  out.ptx = std::string(ptx.str());
  return out;
}
