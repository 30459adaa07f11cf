//===- Aot.h - launching kernels compiled ahead of time -------------------===//
// The build compiles chosen specialisations of library kernels to PTX and generates
// typed C++ stubs (kernels/aot) that call launchAot(); an executable using them needs
// only this runtime, not LLVM/MLIR (the GPU machine has neither).
#pragma once

#include "tile/Spec.h"
#include "tile/runtime/CompiledKernel.h"
#include "tile/runtime/Launch.h"

#include <cuda.h>

#include <cstddef>

namespace tile::rt {

/// One precompiled specialisation of a kernel: the specialisation it was compiled for (what
/// selection compares) and the compiled-kernel record, over the generated file's static storage.
struct AotVariant {
  Specialization spec;
  CompiledKernelView kernel;
};

/// All precompiled specialisations of one kernel.
struct AotKernel {
  const char *name;
  const AotVariant *variants;
  size_t numVariants;
};

struct AotLaunchConfig {
  Dim3 grid;
  int numWarps = 4;
  CUstream stream = nullptr;
};

/// Launches the best variant that is correct for `actual` (exact match, else the one
/// assuming the most divisibility facts that hold). Throws Error naming the kernel, the
/// wanted specialisation and the available ones when none fits.
void launchAot(const AotKernel &kernel, const Specialization &actual, const AotLaunchConfig &config, void **params);

/// The variant launchAot would use (null if none): for tests and tools.
const AotVariant *selectAotVariant(const AotKernel &kernel, const Specialization &actual);

} // namespace tile::rt
