//===- Compiler.h - the compiler driver: tile IR to PTX -------------------===//
// The compiler driver used by the DSL (JIT and AOT) and by tools/: the pass pipeline from
// tile IR to PTX and the launch metadata read off the lowered module. MLIR-facing. (Not the
// software pipeliner, tile-pipeline, which lives in lib/Transforms.)
#ifndef TILE_COMPILER_H
#define TILE_COMPILER_H

#include "tile/Error.h"
#include "tile/runtime/CompiledKernel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <stdexcept>
#include <string>

namespace tile::compiler {

/// The process-wide context with every dialect the pipeline needs loaded.
mlir::MLIRContext &context();

/// A compiler invariant failed: a bug in tile, not in the user's program (tile/Error.h).
using InternalError = ::tile::InternalError;

/// Code generation target: `sm_<sm>` (`sm_<sm>a` when archSpecific) and PTX ISA
/// `<ptxVersion / 10>.<ptxVersion % 10>`. The arch-specific target (sm_90a) unlocks
/// Hopper's wgmma, setmaxnreg, ...; its PTX loads only on that exact compute capability.
struct Target {
  int sm = 90;
  int ptxVersion = 80;
  bool archSpecific = false;
  std::string arch() const; ///< "sm_90a"
  std::string str() const;  ///< "sm_90a ptx80"
};

/// The highest PTX version LLVM's NVPTX backend can emit.
int maxPtxVersionOfLLVM();
/// The highest PTX version a driver of this version (cuDriverGetVersion, e.g. 13000) JITs.
int maxPtxVersionOfDriver(int driverVersion);
/// The oldest PTX ISA version that knows `sm` (what AOT kernels use, so that older
/// drivers still load them); for sm 90 the one that knows sm_90a (8.0).
int minPtxVersionFor(int sm);
/// The most shared memory one block of `sm_<sm>` may use (the opt-in limit), in bytes.
int maxSharedBytesPerBlock(int sm);
/// sm: 0 = sm_90. ptxVersion: 0 = min(driver's, LLVM's) where driverVersion > 0, else LLVM's
/// but at least what `sm` needs. Compute capability 9.0 gets sm_90a where the PTX version
/// has it (8.0+): the wgmma path needs it, and llc aborts on wgmma for plain sm_90.
/// Throws ArgumentError for a ptxVersion LLVM cannot emit (ptxVersionProblem).
Target chooseTarget(int sm, int ptxVersion, int driverVersion);
/// Why PTX ISA version `ptxVersion` (x10) cannot be asked for, or "" when it can: LLVM's NVPTX
/// backend ignores a version it does not know and writes the target's oldest (7.0 for sm_80).
/// A version too old for the target is left to LLVM, which stops with a one-line LLVM ERROR.
std::string ptxVersionProblem(int ptxVersion);

struct GpuCompileOptions {
  Target target;
  bool keepStages = false; ///< fill optimizedIR and llvmIR in the result
};

struct GpuCompileResult {
  rt::CompiledKernel kernel; ///< the PTX and what a launch of it needs
  std::string optimizedIR;   ///< tile IR after the tile passes (keepStages)
  std::string llvmIR;        ///< optimised LLVM IR, libdevice linked (keepStages)
};

/// Runs the whole pipeline on a module holding one kernel (func.func with `tile.kernel`).
/// The module is modified in place. Throws ProgramError when the kernel needs more shared
/// memory than the target has, UnsupportedError (at the op's line) for a feature the
/// compiler cannot do, and InternalError (with a bug report file) on any other failure. Env:
/// TILE_DUMP_DIR=<dir> writes every stage there (tile/StageDump.h); TILE_PRINT_IR_AFTER_ALL=1
/// prints the IR after each pass to stderr.
GpuCompileResult compileForGpu(mlir::ModuleOp module, const GpuCompileOptions &opts);

/// The textual IR of an operation.
std::string printIR(mlir::Operation *op);
/// The symbol of the module's kernel (the func.func with `tile.kernel`), "kernel" if none.
std::string kernelNameOf(mlir::ModuleOp module);

/// Identifies this compiler build (cache keys): git describe / build time of the library.
std::string compilerBuildId();
/// "22.1.8"
std::string llvmVersionString();

} // namespace tile::compiler

#endif

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir
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
