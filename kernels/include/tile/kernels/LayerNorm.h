//===- LayerNorm.h - layer normalisation forward ---------------------------===//
#pragma once

#include "tile/kernels/Declare.h"

namespace tile::kernels {

/// LayerNorm loops over a row in chunks of at most 4096 elements (Triton tutorial 05).
constexpr RowConfig layerNormConfig(int64_t nCols) {
  int64_t block = nextPowerOf2(nCols);
  if (block > 4096) block = 4096;
  int warps = block >= 2048 ? 8 : block >= 1024 ? 4 : 2;
  return {static_cast<int>(block), warps};
}

/// y = (x - mean) * rstd * w + b per row, also writing mean and rstd (for the backward
/// pass). One row per program, looping over the row in BLOCK chunks (Triton tutorial 05).
struct LayerNormForward {
  static constexpr const char *name = "layernorm_fwd";
  static constexpr auto body = [](Ptr<float> x, Ptr<float> y, Ptr<float> w, Ptr<float> b, Ptr<float> mean,
                                  Ptr<float> rstd, I32 rowStride, I32 n, F32 eps, Const<int> BLOCK) {
    Value row = program_id(0);
    Value xRow = x + row * rowStride;
    Value yRow = y + row * rowStride;
    Value nf = cast(n, DType::f32);

    Value partialSum = for_range(0, n, BLOCK, {zeros({BLOCK}, DType::f32)}, [&](Value off, std::vector<Value> acc) {
      Value cols = off + arange(0, BLOCK);
      return std::vector<Value>{acc[0] + load(xRow + cols, cols < n, 0.0f)};
    })[0];
    Value mu = sum(partialSum) / nf;

    Value partialVar = for_range(0, n, BLOCK, {zeros({BLOCK}, DType::f32)}, [&](Value off, std::vector<Value> acc) {
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
  };
  static constexpr std::array params{"x", "y", "w", "b", "mean", "rstd", "row_stride", "n", "eps", "BLOCK"};

  static std::vector<Variant> variants() {
    std::vector<Variant> v;
    for (int64_t n = 1; n <= 4096; n *= 2) v.push_back({{layerNormConfig(n).block}, layerNormConfig(n).numWarps});
    return v;
  }

  /// y[r, :] = (x[r, :] - mean[r]) * rstd[r] * w + b, with mean[r] and rstd[r] =
  /// 1/sqrt(biased var + eps) also written (for the backward pass). x and y share rowStride.
  static void launch(Launcher &l, Address x, Address y, Address w, Address b, Address mean, Address rstd, int64_t rows,
                     int64_t cols, int64_t rowStride, float eps, CUstream stream = nullptr) {
    checkRows(name, rows, cols, rowStride, "rowStride");
    if (!(eps >= 0.0f)) fail(name, "eps must be >= 0 (and not NaN)");
    if (rows == 0) return;
    RowConfig p = layerNormConfig(cols);
    launchKernel<LayerNormForward>(l, {rows}, p.numWarps, stream, x, y, w, b, mean, rstd, int32_t(rowStride),
                                   int32_t(cols), eps, p.block);
  }
};
TILE_LIBRARY_KERNEL(LayerNormForward);

inline const DslKernel<LayerNormForward> &layerNormForwardKernel() { return dslKernel<LayerNormForward>(); }

} // namespace tile::kernels
