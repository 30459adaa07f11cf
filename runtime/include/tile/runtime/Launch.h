// Kernel launch.
#pragma once

#include "tile/runtime/CompiledKernel.h"

#include <cuda.h>

namespace tile::rt {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

// cuLaunchKernel. params: one pointer per kernel parameter, as the driver API expects.
// kernelName only feeds the error message (which also gives grid, block and shared bytes).
void launch(CUfunction f, Dim3 grid, Dim3 block, unsigned sharedBytes, CUstream stream, void **params,
            const char *kernelName);

// Launches code compiled with `meta` (its CompiledKernel's): the one place that turns a record's
// launch metadata into launch parameters, for the JIT and AOT paths alike.
void launch(CUfunction f, Dim3 grid, const LaunchMetadata &meta, CUstream stream, void **params,
            const char *kernelName);

} // namespace tile::rt
