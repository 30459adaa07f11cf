//===- Softmax.h - fused row softmax in the DSL ---------------------------===//
#pragma once

#include "tile/tile.h"

#include <limits>

namespace tile::kernels {

/// out[r, :] = softmax(in[r, :]) for one row per program, the whole row in registers
/// (Triton tutorial 02). Columns past n_cols are masked: read as -inf, never written.
inline const auto &softmaxKernel() {
  static const auto k = tile::kernel(
      "softmax", [](Ptr<float> out, Ptr<float> in, I32 outRowStride, I32 inRowStride, I32 nCols,
                    Const<int> BLOCK) {
        Value row = program_id(0);
        Value cols = arange(0, BLOCK);
        Value mask = cols < nCols;
        Value x = load(in + row * inRowStride + cols, mask, -std::numeric_limits<float>::infinity());
        Value shifted = x - max(x);
        Value num = exp(shifted);
        store(out + row * outRowStride + cols, num / sum(num), mask);
      });
  return k;
}

} // namespace tile::kernels
