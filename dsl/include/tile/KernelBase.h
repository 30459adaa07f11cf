//===- KernelBase.h - the type-erased kernel: trace, compile, launch -------===//
// Tracing, compilation and caching live in dsl/lib; Kernel<F> (Kernel.h) only maps C++
// launch arguments onto the ABI-level launch declared here.
#ifndef TILE_KERNELBASE_H
#define TILE_KERNELBASE_H

#include "tile/Launch.h"
#include "tile/Spec.h"
#include "tile/Types.h"
#include "tile/Value.h"
#include "tile/runtime/CompiledKernel.h"

#include <functional>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

namespace tile {

/// One kernel parameter as the launch ABI and the tracer see it.
struct ParamDesc {
  ArgKind kind;
  DType dtype;  ///< pointee for Ptr and Desc, value type for scalars, i64 for Const
  int rank = 0; ///< Desc: its dimensions
};

/// One specialisation compiled: the record the launch paths, the disk cache and the AOT writer
/// use, and (with CompileRequest::keepStages) every stage's text for tools and tests.
struct CompileResult {
  rt::CompiledKernel kernel;
  std::string tileIR;      ///< as traced from the DSL
  std::string optimizedIR; ///< after the tile passes (layouts assigned)
  std::string llvmIR;      ///< after libdevice linking and optimisation
  bool fromDiskCache = false;
};

/// What the compiler is asked to produce.
struct CompileRequest {
  int sm = 0;         ///< 0: the current GPU's, else 90 (no GPU)
  int ptxVersion = 0; ///< 0: the highest both the driver and LLVM know
  bool useDiskCache = true;
  bool keepStages = false; ///< fill the stage texts of CompileResult (else only its kernel)
};

/// Type-erased kernel: name, parameters and the traced body.
class KernelBase {
public:
  using Body = std::function<void(const std::vector<Value> &args, const Specialization &spec)>;
  KernelBase(std::string name, std::vector<ParamDesc> params, Body body, std::source_location loc);

  const std::string &name() const;
  const std::vector<ParamDesc> &params() const;

  /// The tile IR of one specialisation, as traced (throws ProgramError on a bad program).
  std::string trace(const Specialization &spec) const;
  /// Compile one specialisation through the whole pipeline (uses the on-disk cache).
  CompileResult compile(const Specialization &spec, const CompileRequest &req = {}) const;
  /// Launch with ABI-level arguments: `params` points at each non-Const argument value.
  void launchSpecialized(Grid grid, const LaunchOptions &opts, const Specialization &spec, void **params) const;

private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
  /// The CPU executor's launch (dsl/lib/CpuLaunch.cpp): pointer arguments are host addresses.
  void launchCpu(Grid grid, const LaunchOptions &opts, const Specialization &spec, void **params) const;
};

} // namespace tile

#endif
