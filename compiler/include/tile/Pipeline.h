//===- Pipeline.h - tile IR to PTX ----------------------------------------===//
// The compiler driver used by the DSL (JIT and AOT) and by tools/. MLIR-facing.
#ifndef TILE_PIPELINE_H
#define TILE_PIPELINE_H

#include "tile/runtime/CompiledKernel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <stdexcept>
#include <string>

namespace tile::compiler {

/// The process-wide context with every dialect the pipeline needs loaded.
mlir::MLIRContext &context();

/// A compiler invariant failed: a bug in tile, not in the user's program.
class InternalError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Code generation target: `sm_<sm>` and PTX ISA `<ptxVersion / 10>.<ptxVersion % 10>`.
struct Target {
  int sm = 90;
  int ptxVersion = 80;
  std::string str() const; ///< "sm_90 ptx80"
};

/// The highest PTX version LLVM's NVPTX backend can emit.
int maxPtxVersionOfLLVM();
/// The highest PTX version a driver of this version (cuDriverGetVersion, e.g. 13000) JITs.
int maxPtxVersionOfDriver(int driverVersion);
/// The oldest PTX ISA version that knows `sm` (what AOT kernels use, so that older
/// drivers still load them).
int minPtxVersionFor(int sm);
/// sm: 0 = sm_90. ptxVersion: 0 = min(driver's, LLVM's) where driverVersion > 0, else LLVM's
/// but at least what `sm` needs.
Target chooseTarget(int sm, int ptxVersion, int driverVersion);

struct PipelineOptions {
  Target target;
  bool keepStages = false; ///< fill optimizedIR and llvmIR in the result
};

struct PipelineResult {
  rt::CompiledKernel kernel; ///< the PTX and what a launch of it needs
  std::string optimizedIR;   ///< tile IR after the tile passes (keepStages)
  std::string llvmIR;        ///< optimised LLVM IR, libdevice linked (keepStages)
};

/// Runs the whole pipeline on a module holding one kernel (func.func with `tile.kernel`).
/// The module is modified in place. Throws InternalError on failure, with the
/// diagnostics. Env: TILE_DUMP_DIR=<dir> writes every stage there;
/// TILE_PRINT_IR_AFTER_ALL=1 prints the IR after each pass to stderr.
PipelineResult runPipeline(mlir::ModuleOp module, const PipelineOptions &opts);

/// The textual IR of an operation.
std::string printIR(mlir::Operation *op);
/// Writes one stage to $TILE_DUMP_DIR/<kernel>.<stage> when that variable is set.
void dumpStage(const std::string &kernel, const char *stage, const std::string &text);

/// Identifies this compiler build (cache keys): git describe / build time of the library.
std::string compilerBuildId();
/// "22.1.8"
std::string llvmVersionString();

} // namespace tile::compiler

#endif

namespace mlir {
class DialectRegistry;
class OpPassManager;
}
namespace tile::compiler {
/// Every dialect tile IR and its lowering use (for tools and the context).
void registerDialects(mlir::DialectRegistry &registry);
/// Registers the tile passes and the `tile-gpu-passes` pipeline (for tile-opt).
void registerPasses();
/// The tile passes of the GPU path, in order (canonicalize ... assign layouts, coalesce,
/// dot operands through shared memory, pipelining, shared-memory allocation, barriers):
/// what `tilec` runs and `tile-opt --tile-gpu-passes` runs.
void addTileGpuPasses(mlir::OpPassManager &pm);
} // namespace tile::compiler
