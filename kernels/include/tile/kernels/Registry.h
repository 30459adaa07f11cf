//===- Registry.h - the library's kernels by name (for tools) -------------===//
#pragma once

#include "tile/kernels/Elementwise.h"
#include "tile/kernels/LayerNorm.h"
#include "tile/kernels/Softmax.h"

#include <string>
#include <vector>

namespace tile::kernels {

inline std::vector<const KernelBase *> libraryKernels() {
  return {&vectorAddKernel(), &softmaxKernel(), &layerNormForwardKernel()};
}

inline const KernelBase *findKernel(const std::string &name) {
  for (const KernelBase *k : libraryKernels())
    if (k->name() == name) return k;
  return nullptr;
}

} // namespace tile::kernels
