//===- Launcher.h - where a library kernel launch goes --------------------===//
// Runtime-only (no MLIR, no DSL tracing). The shape-level launchers of the kernel
// declarations (tile/kernels/*.h) end in Launcher::launch with the kernel's name, the
// specialisation their arguments select and the launch ABI's parameter array; the
// implementation decides what runs it:
//   - AotLauncher (AotLauncher.h, needs tile_kernels_aot = tile_runtime + PTX): the
//     variant compiled ahead of time by gen_kernels_aot, found by name;
//   - DslLauncher (DslLauncher.h, links the DSL): the kernel traced from its body and
//     compiled on first use, on the GPU or the CPU executor (host pointers).
#pragma once

#include "tile/Spec.h"
#include "tile/runtime/Launch.h"

#include <cuda.h>

#include <string>

namespace tile::kernels {

class Launcher {
public:
  virtual ~Launcher() = default;

  /// Launches `kernelName` (a declaration's `name`) specialised as `spec` (numWarps
  /// included) on `grid` programs. `params` points at each non-Const argument value, in
  /// parameter order (the launch ABI, tile/Spec.h). The stream is ignored by the CPU
  /// executor, whose launches are synchronous.
  virtual void launch(const char *kernelName, const Specialization &spec, rt::Dim3 grid, void **params,
                      CUstream stream) = 0;

  /// True when pointer arguments are host addresses (the CPU executor).
  virtual bool hostMemory() const = 0;

  /// Branches of independent work. fork() returns a stream for launches that may run beside
  /// the ones enqueued after it on this launcher's own line; they start after everything
  /// enqueued so far. join(branch) orders everything enqueued afterwards after the branch's
  /// work. Every fork must be joined (a captured step must end on its own line). The default
  /// has no branches: fork() returns nullptr (this launcher's own line) and join does nothing,
  /// which is always correct, only slower.
  virtual CUstream fork() { return nullptr; }
  virtual void join(CUstream branch) { (void)branch; }

  /// True while every launch must start after the previous one ends: a launcher that times
  /// launches one by one (KernelProfiler). A launcher in front of it then has no branches.
  virtual bool serializesLaunches() const { return false; }

  /// Identifies the code `kernelName` runs through this launcher (the compiler build, or
  /// the precompiled PTX): the autotuner's disk entries are keyed by it, so new code is
  /// tuned again. "" when unknown.
  virtual std::string codeIdentity(const char *kernelName) const {
    (void)kernelName;
    return {};
  }
};

} // namespace tile::kernels
