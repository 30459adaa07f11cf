//===- CpuCompiler.h - tile IR to native code for the CPU executor --------===//
// MLIR-facing (used by dsl/lib/CpuLaunch.cpp and tools): lowers one traced kernel with
// tile-lower-to-cpu and the standard conversions to the LLVM dialect, then JIT-compiles
// it with LLVM ORC for the chosen x86-64 CPU (TILE_CPU_TARGET, default the host's).
#ifndef TILE_CPU_CPUCOMPILER_H
#define TILE_CPU_CPUCOMPILER_H

#include "mlir/IR/BuiltinOps.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace tile::cpu {

struct CompileOptions {
  bool check = false;  ///< checking mode: every active memory access calls tile_cpu_check first
  int chunk = 16;      ///< elements per vector chunk (a power of two)
  int optLevel = 3;    ///< LLVM -O level of the JIT
  bool keepIR = false; ///< keep the lowered MLIR and the optimised LLVM IR in the result
  /// CPU to generate code for: host | x86-64 | x86-64-v2 | x86-64-v3 | x86-64-v4;
  /// empty = $TILE_CPU_TARGET, else host.
  std::string target;
};

/// A kernel compiled for this host. ABI of entry(): `void **args`, one pointer per
/// non-constant kernel argument in order (an i64 host address for each pointer
/// argument), then six pointers to int32: program id x, y, z, program counts x, y, z.
/// One call runs one program instance.
class CompiledKernel {
public:
  using Entry = void (*)(void **);
  ~CompiledKernel();
  Entry entry() const { return entry_; }
  /// Memory ops in checking-mode site order: "tile.load at file:line:col".
  const std::vector<std::string> &sites() const { return sites_; }
  /// Stack the tensors of one call take (buffers are allocas).
  size_t stackBytes() const { return stackBytes_; }
  const std::string &loweredIR() const { return loweredIR_; }
  const std::string &llvmIR() const { return llvmIR_; }
  /// The CPU the code was generated for ("host" or an x86-64 level).
  const std::string &target() const { return target_; }

private:
  friend std::unique_ptr<CompiledKernel> compile(mlir::ModuleOp, const CompileOptions &);
  struct Engine;
  std::unique_ptr<Engine> engine_;
  Entry entry_ = nullptr;
  std::vector<std::string> sites_;
  size_t stackBytes_ = 0;
  std::string loweredIR_, llvmIR_, target_;
};

/// Lowers `module` (one kernel as traced; modified in place) and JIT-compiles it. Throws
/// tile::compiler::InternalError with the diagnostics on failure. The caller serialises
/// access to the module's MLIRContext. Env TILE_DUMP_DIR=<dir> writes <kernel>-<hash>.cpu.mlir
/// (lowered) and <kernel>-<hash>.cpu.ll (optimised LLVM IR) (tile/StageDump.h);
/// TILE_PRINT_IR_AFTER_ALL=1 prints the IR after each pass of the lowering to stderr.
std::unique_ptr<CompiledKernel> compile(mlir::ModuleOp module, const CompileOptions &opts);

} // namespace tile::cpu

#endif
