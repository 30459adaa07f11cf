//===- KernelImpl.h - KernelBase's private state ---------------------------===//
// Shared by Kernel.cpp (tracing), Compile.cpp (pipeline + disk cache) and Launch.cpp.
#ifndef TILE_DSL_KERNELIMPL_H
#define TILE_DSL_KERNELIMPL_H

#include "tile/runtime/CompiledKernel.h"
#include "tile/tile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cuda.h>

#include <memory>
#include <mutex>
#include <source_location>
#include <string>
#include <vector>

namespace tile {

/// One kernel loaded into one CUDA context, for the launch fast path: the function and its
/// record's launch metadata (the PTX stays with the module cache, which loaded it).
struct LoadedVariant {
  CUcontext ctx = nullptr;
  uint64_t hash = 0;   ///< hashSpecialization(spec, nameHash)
  Specialization spec; ///< compared on a hash match: a collision must not launch the wrong code
  CUfunction fn = nullptr;
  rt::LaunchMetadata meta;
};

/// One specialisation compiled for the CPU executor (defined in CpuLaunch.cpp).
struct CpuVariant;

struct KernelBase::Impl {
  std::string name;
  std::vector<ParamDesc> params;
  Body body;
  std::source_location loc; ///< where tile::kernel(...) was called
  uint64_t nameHash = 0;

  std::mutex mu; ///< guards variants
  std::vector<LoadedVariant> variants;
  std::vector<std::shared_ptr<const CpuVariant>> cpuVariants; ///< guarded by mu

  /// Traces one specialisation into a fresh, verified module.
  mlir::OwningOpRef<mlir::ModuleOp> traceModule(const Specialization &spec) const;
};

namespace detail {
/// Serialises everything that touches the compiler's MLIRContext (created with threading
/// disabled, so its type uniquer is not thread-safe): tracing, printing, the pipeline and
/// destroying modules. Recursive: a kernel body may trace another kernel.
std::recursive_mutex &compilerMutex();
/// Prints a module; with locations when `debugInfo` (pretty=false: "file":line:col).
std::string printModule(mlir::ModuleOp m, bool debugInfo);
} // namespace detail

} // namespace tile

#endif
