//===- Elementwise.h - elementwise kernels in the DSL ---------------------===//
#pragma once

#include "tile/tile.h"

namespace tile::kernels {

/// z = x + y over n elements, BLOCK per program (Triton tutorial 01).
inline const auto &vectorAddKernel() {
  static const auto k = tile::kernel(
      "vector_add", [](Ptr<float> x, Ptr<float> y, Ptr<float> z, I32 n, Const<int> BLOCK) {
        Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
        Value mask = offs < n;
        store(z + offs, load(x + offs, mask) + load(y + offs, mask), mask);
      });
  return k;
}

} // namespace tile::kernels
