//===- CpuCompiler.cpp - lowering pipeline and JIT of the CPU executor ----===//
#include "tile/CPU/CpuCompiler.h"
#include "tile/CPU/CheckRuntime.h"
#include "tile/PassFailure.h"
#include "tile/Compiler.h"
#include "tile/StageDump.h"
#include "tile/Transforms/Passes.h"

#include "HostJit.h"
#include "LoweringAbi.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>

using namespace tile::cpu;

struct CompiledKernel::Engine {
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

namespace {
/// Set by an atexit handler registered after every JIT compilation. A compilation may
/// create function-local statics inside LLVM; those are destroyed before anything
/// constructed earlier (such as a static tile::Kernel owning this engine), so an engine
/// destroyed during exit could touch dead LLVM state. At exit the engines are leaked.
std::atomic<bool> exiting{false};
void markExiting() { exiting = true; }
} // namespace

CompiledKernel::~CompiledKernel() {
  if (exiting) (void)engine_.release();
}

namespace {

void initializeLLVMOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// erf, expm1 and log1p as calls to the C library (scalarised): MathToLLVM has no erf, and
/// computes expm1 and log1p as exp(x) - 1 and log(1 + x), which lose every digit near 0.
/// Only these: the rest keep LLVM's intrinsics (sqrt an instruction, not a call).
mlir::LogicalResult callLibmWhereMathToLLVMLosesDigits(mlir::ModuleOp module) {
  llvm::SmallVector<mlir::Operation *> ops;
  module.walk([&](mlir::Operation *op) {
    if (mlir::isa<mlir::math::ErfOp, mlir::math::ExpM1Op, mlir::math::Log1pOp>(op)) ops.push_back(op);
  });
  if (ops.empty()) return mlir::success();
  mlir::RewritePatternSet patterns(module.getContext());
  mlir::populateMathToLibmConversionPatterns(patterns);
  return mlir::applyOpPatternsGreedily(ops, std::move(patterns));
}

} // namespace

std::unique_ptr<CompiledKernel> tile::cpu::compile(mlir::ModuleOp module, const CompileOptions &opts) {
  mlir::MLIRContext *ctx = module.getContext();
  const std::string name = compiler::kernelNameOf(module);
  const std::string target = resolveCpuTarget(opts.target);
  // Named by what decides the lowered IR and the code: the kernel as traced, the CPU, the options.
  std::optional<compiler::StageDump> dump = compiler::StageDump::open(name, [&] {
    std::string cpu = target == "host" ? "host " + llvm::sys::getHostCPUName().str() : target;
    return compiler::printWithLocations(module) + "\ncpu " + cpu + " check=" + std::to_string(opts.check) +
           " chunk=" + std::to_string(opts.chunk) + " O" + std::to_string(opts.optLevel);
  });
  // Failures past the passes (target machine, translation, linking) are bugs without a
  // pass to blame: plain InternalError.
  auto fail = [&](const std::string &what) -> std::unique_ptr<CompiledKernel> {
    throw tile::compiler::InternalError("tile: internal compiler error (CPU executor) " + what + " for kernel '" +
                                        name + "' (this is a bug)");
  };

  mlir::PassManager pm(ctx);
  compiler::printIRAfterAllFromEnv(pm);
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  mlir::tile::TileLowerToCPUOptions lowerOpts;
  lowerOpts.chunk = opts.chunk;
  lowerOpts.check = opts.check;
  pm.addPass(mlir::tile::createTileLowerToCPU(lowerOpts));
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  {
    // An op the CPU executor cannot run is UnsupportedError at the user's line; any other
    // failure is a bug, reported with the IR and the failing pass in a file.
    compiler::PassFailureReport report(module, name, "the CPU executor's lowering", "--tile-lower-to-cpu");
    report.instrument(pm);
    if (failed(pm.run(module))) report.fail();
  }
  auto result = std::make_unique<CompiledKernel>();
  if (dump || opts.keepIR) {
    std::string lowered = compiler::printIR(module);
    if (dump) dump->write("cpu.mlir", lowered);
    if (opts.keepIR) result->loweredIR_ = std::move(lowered);
  }
  if (auto sites = module->getAttrOfType<mlir::ArrayAttr>(mlir::tile::cpu::kSitesAttr))
    for (mlir::Attribute s : sites) result->sites_.push_back(mlir::cast<mlir::StringAttr>(s).str());
  if (auto bytes = module->getAttrOfType<mlir::IntegerAttr>(mlir::tile::cpu::kStackBytesAttr))
    result->stackBytes_ = bytes.getInt();

  if (mlir::failed(callLibmWhereMathToLLVMLosesDigits(module))) fail("calling the C library's erf/expm1/log1p");
  mlir::PassManager toLLVM(ctx);
  compiler::printIRAfterAllFromEnv(toLLVM);
  toLLVM.addPass(mlir::tile::createTileCpuExpandSmallFloats());
  toLLVM.addPass(mlir::createSCFToControlFlowPass());
  toLLVM.addPass(mlir::createConvertVectorToLLVMPass());
  toLLVM.addPass(mlir::createFinalizeMemRefToLLVMConversionPass());
  toLLVM.addPass(mlir::createArithToLLVMConversionPass());
  toLLVM.addPass(mlir::createConvertMathToLLVMPass());
  toLLVM.addPass(mlir::createConvertFuncToLLVMPass());
  toLLVM.addPass(mlir::createConvertControlFlowToLLVMPass());
  toLLVM.addPass(mlir::createReconcileUnrealizedCastsPass());
  {
    compiler::PassFailureReport report(module, name, "the CPU executor's conversion to LLVM", "");
    report.instrument(toLLVM);
    if (failed(toLLVM.run(module))) report.fail();
  }

  initializeLLVMOnce();
  static std::set<mlir::MLIRContext *> translatable; // the caller serialises compile()
  if (translatable.insert(ctx).second) {
    mlir::registerBuiltinDialectTranslation(*ctx);
    mlir::registerLLVMDialectTranslation(*ctx);
  }
  auto tm = targetMachineBuilder(target).createTargetMachine();
  if (!tm) return fail("creating the target machine for " + target + ": " + llvm::toString(tm.takeError()));
  auto llvmContext = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> llvmModule = mlir::translateModuleToLLVMIR(module, *llvmContext, name);
  if (!llvmModule) return fail("translating to LLVM IR");
  llvmModule->setDataLayout((*tm)->createDataLayout());
  llvmModule->setTargetTriple((*tm)->getTargetTriple());
  const std::string entryName = addPackedWrapper(*llvmModule, name);
  if (llvm::Error e = mlir::makeOptimizingTransformer(opts.optLevel, /*sizeLevel=*/0, tm->get())(llvmModule.get()))
    return fail("optimising: " + llvm::toString(std::move(e)));
  std::string llvmIR;
  if (opts.keepIR || dump) {
    llvm::raw_string_ostream os(llvmIR);
    llvmModule->print(os, nullptr);
  }
  if (dump) dump->write("cpu.ll", llvmIR); // before linking: a link failure is what one wants to see
  JitKernel linked = linkKernel(std::move(llvmModule), std::move(llvmContext), entryName, name, target,
                                {{mlir::tile::cpu::kCheckFn.str(), reinterpret_cast<void *>(&tile_cpu_check)}});
  if (opts.keepIR) result->llvmIR_ = std::move(llvmIR);
  result->entry_ = linked.entry;
  result->target_ = target;
  std::atexit(markExiting); // after the statics this compilation created (see markExiting)
  result->engine_ = std::make_unique<CompiledKernel::Engine>();
  result->engine_->jit = std::move(linked.jit);
  return result;
}
