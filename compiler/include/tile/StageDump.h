//===- StageDump.h - TILE_DUMP_DIR: every stage of every kernel compiled ---===//
// With TILE_DUMP_DIR=<dir> each compilation writes its stages as <dir>/<kernel>-<hash>.<stage>:
//   the GPU pipeline (compileForGpu): tile.mlir (as traced, with the user's lines: tilec and
//     tile-opt read it back), opt.mlir, llvm.mlir, ll, ptx; where ptxas is found regs (ptxas -v)
//     and cubin; where nvdisasm or cuobjdump is found sass;
//   the CPU executor (tile::cpu::compile): cpu.mlir (lowered), cpu.ll.
// A kernel the CPU executor runs is also compiled for TILE_DUMP_SM (default sm_90a), so its
// GPU stages are there on a machine without a GPU (dumpGpuStages).
// The hash covers everything that decides the files (the traced IR with locations, the target
// and options, the compiler build), so one name always stands for the same contents. Files are
// created, never replaced: an existing file with the same bytes is this dump from an earlier
// run and stays; any other file of that name is not ours: one warning, and it stays too.
#ifndef TILE_STAGEDUMP_H
#define TILE_STAGEDUMP_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>

namespace mlir {
class PassManager;
}

namespace tile::compiler {

struct Target;

/// $TILE_DUMP_DIR, or "" when no stage is dumped.
std::string stageDumpDirectory();

/// The files of one compilation of one kernel.
class StageDump {
public:
  /// nullopt when TILE_DUMP_DIR is unset (one getenv: all that the no-dump path pays) or its
  /// directory cannot be made. `key` returns the text that decides every file written.
  static std::optional<StageDump> open(const std::string &kernel, llvm::function_ref<std::string()> key);
  /// Whether this process opened the same compilation before (its files are there).
  bool openedBefore() const { return openedBefore_; }
  /// <dir>/<kernel>-<hash>.<stage>
  std::string path(const std::string &stage) const;
  /// Creates path(stage) holding `text` (see the file comment for an existing file).
  void write(const std::string &stage, const std::string &text) const;
  /// regs and cubin (ptxas -v) and sass of `ptx`, as far as this machine's CUDA toolkit goes;
  /// a missing tool is one note per process, not a failure. `arch` where the PTX names none.
  void writeMachineCode(const std::string &ptx, const std::string &arch) const;

private:
  std::string dir_, base_;
  bool openedBefore_ = false;
};

/// A module printed with its locations in the form the parser reads back ("file":line:col).
std::string printWithLocations(mlir::ModuleOp module);

/// What decides the GPU pipeline's files (StageDump::open's key): the traced IR as
/// printWithLocations prints it, and the target.
std::string gpuStageDumpKey(const std::string &tracedWithLocations, const Target &target);

/// The target of the GPU stages dumped for kernels the CPU executor runs: $TILE_DUMP_SM
/// (sm_90a, sm_80, 90, ...), default sm_90a. Throws ArgumentError naming a malformed value.
Target stageDumpTarget();

/// With TILE_DUMP_DIR set: compiles a copy of `traced` (a kernel as traced, before any pass)
/// for stageDumpTarget() so that its GPU stages are dumped although it runs on the CPU; once
/// per traced IR and process. A kernel that does not compile for that GPU costs one warning.
void dumpGpuStages(mlir::ModuleOp traced);

/// TILE_PRINT_IR_AFTER_ALL=1: `pm` prints the IR after each of its passes to stderr.
void printIRAfterAllFromEnv(mlir::PassManager &pm);

} // namespace tile::compiler

#endif
