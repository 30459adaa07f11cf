//===- AotLaunchers.h - shape-level launchers over the AOT kernel stubs ---===//
// The generated stubs (kernels_aot.h) take raw kernel parameters and a launch config;
// these wrappers take tensor shapes and apply the launch policy (Policy.h), so callers
// never pick BLOCK, warps or grids themselves and always hit a precompiled variant.
// Header-only: needs tile_kernels_aot (and through it only tile_runtime).
#pragma once

#include "kernels_aot.h"
#include "tile/kernels/Policy.h"

#include <cuda.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace tile::kernels::aot {

namespace detail {

// Kernels index with int32 (row * stride + col): reject what would overflow instead of
// silently reading the wrong memory.
constexpr int64_t kMaxI32 = std::numeric_limits<int32_t>::max();

// Messages are built only on failure: these checks run on every launch.
[[noreturn]] inline void fail(const char *fn, const std::string &what) {
  throw std::invalid_argument(std::string("tile::kernels::aot::") + fn + ": " + what);
}

inline std::string num(int64_t v) { return std::to_string(v); }

// Row kernels: one program per row, every row inside int32 index range.
inline void checkRows(const char *fn, int64_t rows, int64_t cols, int64_t stride, const char *strideName) {
  if (rows < 0) fail(fn, "rows = " + num(rows) + " is negative");
  if (cols < 1) fail(fn, "cols = " + num(cols) + " must be >= 1");
  if (stride < cols)
    fail(fn, std::string(strideName) + " = " + num(stride) + " is smaller than cols = " + num(cols));
  if (rows > kMaxI32) fail(fn, "rows = " + num(rows) + " exceeds the grid limit 2^31-1");
  if (rows > 0 && (stride > kMaxI32 || (rows - 1) * stride + cols > kMaxI32))
    fail(fn, "rows * " + std::string(strideName) + " = " + num(rows) + " * " + num(stride) +
                 " exceeds the kernel's int32 indexing");
}

inline rt::AotLaunchConfig config(int64_t grid, int numWarps, CUstream s) {
  rt::AotLaunchConfig c;
  c.grid = rt::Dim3{static_cast<unsigned>(grid), 1, 1};
  c.numWarps = numWarps;
  c.stream = s;
  return c;
}

} // namespace detail

/// z[i] = x[i] + y[i] for i < n (float32). n == 0 launches nothing.
inline void vectorAdd(CUdeviceptr x, CUdeviceptr y, CUdeviceptr z, int64_t n, CUstream s = nullptr) {
  constexpr int block = ElementwiseConfig::block;
  // The last program's offsets reach cdiv(n, BLOCK) * BLOCK - 1, which must fit int32.
  if (n < 0 || n > detail::kMaxI32 - block + 1)
    detail::fail("vectorAdd", "n = " + detail::num(n) + " is outside [0, 2^31 - " + detail::num(block) + "]");
  if (n == 0) return;
  int64_t grid = (n + block - 1) / block;
  tile::aot::vector_add(detail::config(grid, ElementwiseConfig::numWarps, s), x, y, z, static_cast<int32_t>(n),
                        block);
}

/// out[r, :cols] = softmax(in[r, :cols]) for r < rows (float32, row-major with the given
/// row strides in elements). cols <= kMaxRowBlock: the whole row lives in registers.
inline void softmax(CUdeviceptr out, CUdeviceptr in, int64_t rows, int64_t cols, int64_t outRowStride,
                    int64_t inRowStride, CUstream s = nullptr) {
  if (cols > kMaxRowBlock)
    detail::fail("softmax", "cols = " + detail::num(cols) + " exceeds kMaxRowBlock = " + detail::num(kMaxRowBlock) +
                                " (one row per program, held in registers)");
  detail::checkRows("softmax", rows, cols, inRowStride, "inRowStride");
  detail::checkRows("softmax", rows, cols, outRowStride, "outRowStride");
  if (rows == 0) return;
  RowConfig p = softmaxConfig(cols);
  tile::aot::softmax(detail::config(rows, p.numWarps, s), out, in, static_cast<int32_t>(outRowStride),
                     static_cast<int32_t>(inRowStride), static_cast<int32_t>(cols), p.block);
}

/// y[r, :] = (x[r, :] - mean[r]) * rstd[r] * w + b, with mean[r] and rstd[r] =
/// 1/sqrt(biased var + eps) also written (for the backward pass). x and y share rowStride.
inline void layerNormForward(CUdeviceptr x, CUdeviceptr y, CUdeviceptr w, CUdeviceptr b, CUdeviceptr mean,
                             CUdeviceptr rstd, int64_t rows, int64_t cols, int64_t rowStride, float eps,
                             CUstream s = nullptr) {
  detail::checkRows("layerNormForward", rows, cols, rowStride, "rowStride");
  if (!(eps >= 0.0f)) detail::fail("layerNormForward", "eps must be >= 0 (and not NaN)");
  if (rows == 0) return;
  RowConfig p = layerNormConfig(cols);
  tile::aot::layernorm_fwd(detail::config(rows, p.numWarps, s), x, y, w, b, mean, rstd,
                           static_cast<int32_t>(rowStride), static_cast<int32_t>(cols), eps, p.block);
}

} // namespace tile::kernels::aot
