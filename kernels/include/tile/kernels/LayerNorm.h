//===- LayerNorm.h - layer normalisation forward in the DSL ---------------===//
#pragma once

#include "tile/tile.h"

namespace tile::kernels {

/// y = (x - mean) * rstd * w + b per row, also writing mean and rstd (for the backward
/// pass). One row per program, looping over the row in BLOCK chunks (Triton tutorial 05).
inline const auto &layerNormForwardKernel() {
  static const auto k = tile::kernel(
      "layernorm_fwd", [](Ptr<float> x, Ptr<float> y, Ptr<float> w, Ptr<float> b, Ptr<float> mean,
                          Ptr<float> rstd, I32 rowStride, I32 n, F32 eps, Const<int> BLOCK) {
        Value row = program_id(0);
        Value xRow = x + row * rowStride;
        Value yRow = y + row * rowStride;
        Value nf = cast(n, DType::f32);

        Value partialSum = for_range(0, n, BLOCK, {zeros({BLOCK}, DType::f32)},
                                     [&](Value off, std::vector<Value> acc) {
                                       Value cols = off + arange(0, BLOCK);
                                       return std::vector<Value>{acc[0] + load(xRow + cols, cols < n, 0.0f)};
                                     })[0];
        Value mu = sum(partialSum) / nf;

        Value partialVar = for_range(0, n, BLOCK, {zeros({BLOCK}, DType::f32)},
                                     [&](Value off, std::vector<Value> acc) {
                                       Value cols = off + arange(0, BLOCK);
                                       Value mask = cols < n;
                                       Value d = where(mask, load(xRow + cols, mask, 0.0f) - mu, 0.0f);
                                       return std::vector<Value>{acc[0] + d * d};
                                     })[0];
        Value r = rsqrt(sum(partialVar) / nf + eps);
        store(mean + row, mu);
        store(rstd + row, r);

        for_range(0, n, BLOCK, [&](Value off) {
          Value cols = off + arange(0, BLOCK);
          Value mask = cols < n;
          Value xv = load(xRow + cols, mask, 0.0f);
          store(yRow + cols, (xv - mu) * r * load(w + cols, mask) + load(b + cols, mask), mask);
        });
      });
  return k;
}

} // namespace tile::kernels
