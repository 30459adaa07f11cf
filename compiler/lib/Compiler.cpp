//===- Compiler.cpp - the compiler driver: passes from tile IR to PTX -----===//
#include "tile/Compiler.h"

#include "tile/PassFailure.h"
#include "tile/StageDump.h"
#include "tile/Target/PTX.h"
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
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

#include <algorithm>

#include "BuildId.inc" // TILE_COMPILER_SOURCES_HASH, generated from compiler/ sources

using namespace tile::compiler;

static_assert(mlir::tile::kMaxTmaMaps == unsigned(tile::rt::kMaxTmaParams), "a launch's TMA maps fit its metadata");

/// The runtime's name for a #tile.tma_map's element type (the enums list the same types).
static tile::rt::TensorMapType tensorMapType(mlir::tile::TmaElementType type) {
  using mlir::tile::TmaElementType;
  using tile::rt::TensorMapType;
  switch (type) {
  case TmaElementType::U8: return TensorMapType::U8;
  case TmaElementType::I32: return TensorMapType::I32;
  case TmaElementType::F16: return TensorMapType::F16;
  case TmaElementType::BF16: return TensorMapType::BF16;
  case TmaElementType::F32: return TensorMapType::F32;
  case TmaElementType::TF32: return TensorMapType::TF32;
  }
  throw tile::InternalError("unknown TMA element type " + std::to_string(int(type)));
}

void tile::compiler::registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::tile::TileDialect, mlir::arith::ArithDialect, mlir::math::MathDialect, mlir::scf::SCFDialect,
                  mlir::func::FuncDialect, mlir::cf::ControlFlowDialect, mlir::LLVM::LLVMDialect,
                  mlir::NVVM::NVVMDialect>();
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
  pm.addPass(mlir::tile::createTileWarpSpecialize());
  pm.addPass(mlir::tile::createTilePipeline());
  pm.addPass(mlir::tile::createTileTmaStores());
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

std::string Target::arch() const { return "sm_" + std::to_string(sm) + (archSpecific ? "a" : ""); }
std::string Target::str() const { return arch() + " ptx" + std::to_string(ptxVersion); }

int tile::compiler::maxPtxVersionOfLLVM() { return llvmMaxPtxVersion(); }

int tile::compiler::maxPtxVersionOfDriver(int driverVersion) {
  // PTX ISA version introduced with each CUDA release (the driver JITs up to it).
  struct Row {
    int cuda, ptx;
  };
  static constexpr Row table[] = {{11000, 70}, {11010, 71}, {11020, 72}, {11030, 73}, {11040, 74}, {11050, 75},
                                  {11060, 76}, {11070, 77}, {11080, 78}, {12000, 80}, {12010, 81}, {12020, 82},
                                  {12030, 83}, {12040, 84}, {12050, 85}, {12080, 87}, {12090, 88}, {13000, 90}};
  int best = 0;
  for (const Row &r : table)
    if (driverVersion >= r.cuda) best = r.ptx;
  return best;
}

int tile::compiler::maxSharedBytesPerBlock(int sm) {
  // CUDA's "maximum shared memory per thread block" (opt-in) per compute capability.
  switch (sm) {
  case 70:
  case 72: return 96 * 1024;
  case 75: return 64 * 1024;
  case 80:
  case 87: return 163 * 1024;
  case 86:
  case 89:
  case 120:
  case 121: return 99 * 1024;
  default: return sm >= 90 ? 227 * 1024 : 48 * 1024;
  }
}

// sm_90 needs PTX 8.0 (CUDA 12.0), not 7.8: the arch-specific sm_90a, which wgmma needs,
// first exists there.
int tile::compiler::minPtxVersionFor(int sm) { return sm >= 90 ? 80 : sm >= 89 ? 78 : sm >= 80 ? 70 : 60; }

std::string tile::compiler::ptxVersionProblem(int ptxVersion) {
  const std::vector<int> &known = llvmPtxVersions();
  if (ptxVersion == 0 || std::find(known.begin(), known.end(), ptxVersion) != known.end()) return "";
  auto dotted = [](int v) { return std::to_string(v / 10) + "." + std::to_string(v % 10); };
  std::string list;
  for (int v : known) list += (list.empty() ? "" : ", ") + dotted(v);
  return "PTX ISA version " + std::to_string(ptxVersion) +
         " is not one LLVM " LLVM_VERSION_STRING "'s NVPTX backend emits (it knows " + list +
         ", written x10: 80 is 8.0; 0 picks the highest)";
}

Target tile::compiler::chooseTarget(int sm, int ptxVersion, int driverVersion) {
  if (std::string problem = ptxVersionProblem(ptxVersion); !problem.empty())
    throw tile::ArgumentError("tile: " + problem);
  Target t;
  t.sm = sm ? sm : 90;
  if (ptxVersion) {
    t.ptxVersion = ptxVersion;
  } else {
    int cap = maxPtxVersionOfLLVM();
    if (driverVersion > 0) cap = std::min(cap, maxPtxVersionOfDriver(driverVersion));
    t.ptxVersion = std::max(cap, minPtxVersionFor(t.sm));
  }
  t.archSpecific = t.sm == 90 && t.ptxVersion >= 80;
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

std::string tile::compiler::kernelNameOf(mlir::ModuleOp module) {
  std::string name = "kernel";
  module.walk([&](mlir::func::FuncOp f) {
    if (f->hasAttr(mlir::tile::kKernelAttr)) name = f.getSymName().str();
  });
  return name;
}

GpuCompileResult tile::compiler::compileForGpu(mlir::ModuleOp module, const GpuCompileOptions &opts) {
  mlir::MLIRContext *ctx = module.getContext();
  std::string name = kernelNameOf(module);
  std::optional<tile::SourceLine> kernelLine;
  module.walk([&](mlir::func::FuncOp f) {
    if (f->hasAttr(mlir::tile::kKernelAttr)) kernelLine = userLineOf(f.getLoc());
  });
  // The traced IR with the user's lines, as tilec and tile-opt read it back.
  std::string traced;
  std::optional<StageDump> dump = StageDump::open(name, [&] {
    traced = printWithLocations(module);
    return gpuStageDumpKey(traced, opts.target);
  });
  if (dump) dump->write("tile.mlir", traced);
  module->setAttr(mlir::tile::kTargetAttr, mlir::StringAttr::get(ctx, opts.target.arch()));

  mlir::PassManager pm(ctx);
  printIRAfterAllFromEnv(pm);
  addTileGpuPasses(pm);
  {
    // An unsupported feature becomes UnsupportedError at the user's line; anything else is
    // an InternalError with a bug report (the IR, the failing pass) written to a file.
    PassFailureReport report(module, name, "the tile passes", "--tile-gpu-passes");
    report.instrument(pm);
    if (failed(pm.run(module))) report.fail();
  }

  GpuCompileResult result;
  if (opts.keepStages) result.optimizedIR = printIR(module);
  if (dump) dump->write("opt.mlir", opts.keepStages ? result.optimizedIR : printIR(module));

  mlir::PassManager lower(ctx);
  printIRAfterAllFromEnv(lower);
  lower.addPass(mlir::tile::createConvertTileToLLVM());
  lower.addPass(mlir::createCanonicalizerPass());
  lower.addPass(mlir::createCSEPass());
  lower.addPass(mlir::createReconcileUnrealizedCastsPass());
  // NVVM ops without an LLVM intrinsic (wgmma.mma_async, predicated ones) become inline PTX.
  lower.addPass(mlir::createConvertNVVMToLLVMPass());
  // A debug scope on the kernel, so the ops' locations (the user's DSL lines) become PTX
  // .file/.loc directives: compute-sanitizer, Nsight Compute and cuobjdump then name the
  // DSL line. Directives only: no DWARF sections in the PTX.
  {
    mlir::LLVM::DIScopeForLLVMFuncOpPassOptions debug;
    debug.emissionKind = mlir::LLVM::DIEmissionKind::DebugDirectivesOnly;
    lower.addPass(mlir::LLVM::createDIScopeForLLVMFuncOpPass(debug));
  }
  {
    PassFailureReport report(module, name, "the lowering to LLVM", "--convert-tile-to-llvm");
    report.instrument(lower);
    if (failed(lower.run(module))) report.fail();
  }
  if (dump) dump->write("llvm.mlir", printIR(module));

  if (auto a = module->getAttrOfType<mlir::IntegerAttr>(mlir::tile::kSharedBytesAttr)) {
    // Too big a tile (or too many pipeline stages) for this GPU: the user's to fix, named
    // at the kernel's definition, before the backend spends time on code that cannot launch.
    int limit = maxSharedBytesPerBlock(opts.target.sm);
    if (a.getInt() > limit)
      throw tile::ProgramError(kernelLine.value_or(tile::SourceLine{"<unknown>", 0, 0}),
                               "kernel '" + name + "' needs " + std::to_string(a.getInt()) +
                                   " bytes of shared memory per block, sm_" + std::to_string(opts.target.sm) +
                                   " allows at most " + std::to_string(limit) +
                                   "; use smaller tiles or fewer pipeline stages (num_stages)");
  }

  rt::CompiledKernel &kernel = result.kernel;
  kernel.name = name;
  kernel.target = opts.target.str();
  if (auto a = module->getAttrOfType<mlir::IntegerAttr>(mlir::tile::kSharedBytesAttr))
    kernel.meta.sharedBytes = a.getInt();
  if (std::optional<unsigned> warps = mlir::tile::launchWarps(module)) kernel.meta.numWarps = *warps;
  for (auto [slot, map] : llvm::enumerate(mlir::tile::tmaMaps(module))) {
    rt::TmaParam &p = kernel.meta.tma.at(slot);
    p.param = int(map.getArg());
    p.type = tensorMapType(map.getType());
    p.swizzleBytes = map.getSwizzle();
    p.rank = unsigned(map.getBox().size());
    for (auto [d, extent] : llvm::enumerate(map.getBox())) p.box[d] = unsigned(extent);
  }

  PTXOutput ptx = emitPTX(module, opts.target, opts.keepStages || dump.has_value());
  if (dump) {
    dump->write("ll", ptx.llvmIR);
    dump->write("ptx", ptx.ptx);
    dump->writeMachineCode(ptx.ptx, opts.target.arch());
  }
  result.llvmIR = std::move(ptx.llvmIR);
  kernel.ptx = std::move(ptx.ptx);
  return result;
}
