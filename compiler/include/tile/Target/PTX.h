//===- PTX.h - LLVM-dialect module → PTX through LLVM's NVPTX backend -----===//
#ifndef TILE_TARGET_PTX_H
#define TILE_TARGET_PTX_H

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace tile::compiler {

struct Target;

struct PTXOutput {
  std::string llvmIR; ///< optimised, libdevice linked (when asked for)
  std::string ptx;
};

/// Translates to LLVM IR, links the CUDA toolkit's libdevice when the module calls
/// `__nv_*` functions, optimises at O3 for the target and emits PTX. Throws
/// InternalError with LLVM's message on failure.
PTXOutput emitPTX(mlir::ModuleOp module, const Target &target, bool keepLLVMIR);

/// Where libdevice is found: $TILE_LIBDEVICE, else the toolkit's
/// nvvm/libdevice/libdevice.10.bc under $CUDA_HOME or /usr/local/cuda.
std::string libdevicePath();

/// Highest PTX ISA version (e.g. 90 for 9.0) this LLVM's NVPTX backend knows.
int llvmMaxPtxVersion();
/// Every PTX ISA version it can emit, ascending (its `+ptxNN` features; it ignores others).
const std::vector<int> &llvmPtxVersions();

} // namespace tile::compiler

#endif
