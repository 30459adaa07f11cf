//===- Pipeline.cpp - the pass pipeline from tile IR to PTX ---------------===//
#include "tile/Pipeline.h"

#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "tile/Target/PTX.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "BuildId.inc" // TILE_COMPILER_SOURCES_HASH, generated from compiler/ sources

using namespace tile::compiler;

void tile::compiler::registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::tile::TileDialect, mlir::arith::ArithDialect, mlir::math::MathDialect,
                  mlir::scf::SCFDialect, mlir::func::FuncDialect, mlir::cf::ControlFlowDialect,
                  mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect>();
}

void tile::compiler::addTileGpuPasses(mlir::OpPassManager &pm) {
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  pm.addPass(mlir::tile::createTileAssignLayouts());
  pm.addPass(mlir::tile::createTileCoalesce());
  pm.addPass(mlir::tile::createTileAccelerateMatmul());
  pm.addPass(mlir::tile::createTileRemoveLayoutConversions());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  pm.addPass(mlir::tile::createTileOptimizeDotOperands());
  pm.addPass(mlir::tile::createTilePipeline());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  // Last: nothing may move, add or remove a shared-memory access after these two.
  pm.addPass(mlir::tile::createTileAllocateShared());
  pm.addPass(mlir::tile::createTileInsertBarriers());
}

void tile::compiler::registerPasses() {
  mlir::tile::registerTilePasses();
  mlir::PassPipelineRegistration<>("tile-gpu-passes",
                                   "The tile passes of the GPU pipeline, from traced tile IR to laid-out IR with "
                                   "shared memory placed and fenced (what convert-tile-to-llvm takes)",
                                   [](mlir::OpPassManager &pm) { addTileGpuPasses(pm); });
}

mlir::MLIRContext &tile::compiler::context() {
  static mlir::MLIRContext *ctx = [] {
    mlir::DialectRegistry registry;
    registerDialects(registry);
    auto *c = new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    c->loadAllAvailableDialects();
    return c;
  }();
  return *ctx;
}

std::string Target::str() const { return "sm_" + std::to_string(sm) + " ptx" + std::to_string(ptxVersion); }

int tile::compiler::maxPtxVersionOfLLVM() { return llvmMaxPtxVersion(); }

int tile::compiler::maxPtxVersionOfDriver(int driverVersion) {
  // PTX ISA version introduced with each CUDA release (the driver JITs up to it).
  struct Row { int cuda, ptx; };
  static constexpr Row table[] = {{11000, 70}, {11010, 71}, {11020, 72}, {11030, 73}, {11040, 74},
                                  {11050, 75}, {11060, 76}, {11070, 77}, {11080, 78}, {12000, 80},
                                  {12010, 81}, {12020, 82}, {12030, 83}, {12040, 84}, {12050, 85},
                                  {12080, 87}, {12090, 88}, {13000, 90}};
  int best = 0;
  for (const Row &r : table)
    if (driverVersion >= r.cuda) best = r.ptx;
  return best;
}

int tile::compiler::minPtxVersionFor(int sm) { return sm >= 90 ? 78 : sm >= 89 ? 78 : sm >= 80 ? 70 : 60; }

Target tile::compiler::chooseTarget(int sm, int ptxVersion, int driverVersion) {
  Target t;
  t.sm = sm ? sm : 90;
  if (ptxVersion) {
    t.ptxVersion = ptxVersion;
  } else {
    int cap = maxPtxVersionOfLLVM();
    if (driverVersion > 0) cap = std::min(cap, maxPtxVersionOfDriver(driverVersion));
    t.ptxVersion = std::max(cap, minPtxVersionFor(t.sm));
  }
  return t;
}

std::string tile::compiler::compilerBuildId() { return TILE_COMPILER_SOURCES_HASH; }
std::string tile::compiler::llvmVersionString() { return LLVM_VERSION_STRING; }

std::string tile::compiler::printIR(mlir::Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  return s;
}

void tile::compiler::dumpStage(const std::string &kernel, const char *stage, const std::string &text) {
  const char *dir = std::getenv("TILE_DUMP_DIR");
  if (!dir || !*dir) return;
  std::filesystem::create_directories(dir);
  std::ofstream(std::string(dir) + "/" + kernel + "." + stage) << text;
}

namespace {
std::string kernelName(mlir::ModuleOp module) {
  std::string name = "kernel";
  module.walk([&](mlir::func::FuncOp f) {
    if (f->hasAttr(mlir::tile::kKernelAttr)) name = f.getSymName().str();
  });
  return name;
}
} // namespace

PipelineResult tile::compiler::runPipeline(mlir::ModuleOp module, const PipelineOptions &opts) {
  mlir::MLIRContext *ctx = module.getContext();
  std::string name = kernelName(module);
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(ctx, [&](mlir::Diagnostic &d) {
    llvm::raw_string_ostream os(diagnostics);
    os << d.getLocation() << ": " << d << "\n";
    return mlir::success();
  });
  dumpStage(name, "tile.mlir", printIR(module));
  module->setAttr(mlir::tile::kTargetAttr, mlir::StringAttr::get(ctx, "sm_" + std::to_string(opts.target.sm)));

  mlir::PassManager pm(ctx);
  if (const char *p = std::getenv("TILE_PRINT_IR_AFTER_ALL"); p && *p == '1') {
    pm.getContext()->disableMultithreading();
    pm.enableIRPrinting();
  }
  addTileGpuPasses(pm);
  if (failed(pm.run(module)))
    throw InternalError("tile: internal compiler error in the tile passes for kernel '" + name + "' (this is a bug):\n" + diagnostics);

  PipelineResult result;
  if (opts.keepStages) result.optimizedIR = printIR(module);
  dumpStage(name, "opt.mlir", opts.keepStages ? result.optimizedIR : printIR(module));

  mlir::PassManager lower(ctx);
  if (const char *p = std::getenv("TILE_PRINT_IR_AFTER_ALL"); p && *p == '1') lower.enableIRPrinting();
  lower.addPass(mlir::tile::createConvertTileToLLVM());
  lower.addPass(mlir::createCanonicalizerPass());
  lower.addPass(mlir::createCSEPass());
  lower.addPass(mlir::createReconcileUnrealizedCastsPass());
  // A debug scope on the kernel, so the ops' locations (the user's DSL lines) become PTX
  // .file/.loc directives: compute-sanitizer, Nsight Compute and cuobjdump then name the
  // DSL line. Directives only: no DWARF sections in the PTX.
  {
    mlir::LLVM::DIScopeForLLVMFuncOpPassOptions debug;
    debug.emissionKind = mlir::LLVM::DIEmissionKind::DebugDirectivesOnly;
    lower.addPass(mlir::LLVM::createDIScopeForLLVMFuncOpPass(debug));
  }
  if (failed(lower.run(module)))
    throw InternalError("tile: internal compiler error lowering kernel '" + name + "' to LLVM (this is a bug):\n" + diagnostics);
  dumpStage(name, "llvm.mlir", printIR(module));

  rt::CompiledKernel &kernel = result.kernel;
  kernel.name = name;
  kernel.target = opts.target.str();
  if (auto a = module->getAttrOfType<mlir::IntegerAttr>(mlir::tile::kSharedBytesAttr)) kernel.meta.sharedBytes = a.getInt();
  if (auto a = module->getAttrOfType<mlir::IntegerAttr>(mlir::tile::kNumWarpsAttr)) kernel.meta.numWarps = a.getInt();

  PTXOutput ptx = emitPTX(module, opts.target, opts.keepStages || std::getenv("TILE_DUMP_DIR"));
  dumpStage(name, "ll", ptx.llvmIR);
  dumpStage(name, "ptx", ptx.ptx);
  result.llvmIR = std::move(ptx.llvmIR);
  kernel.ptx = std::move(ptx.ptx);
  return result;
}
