//===- Softmax.h - fused row softmax ---------------------------------------===//
#pragma once

#include "tile/kernels/Declare.h"

#include <limits>

namespace tile::kernels {

/// One softmax row lives in registers: at most this many columns.
constexpr int kMaxRowBlock = 16384;

/// The block is the next power of two of the row length, with more warps for longer rows
/// so that each thread keeps <= 32 values.
constexpr RowConfig softmaxConfig(int64_t nCols) {
  int block = static_cast<int>(nextPowerOf2(nCols));
  int warps = block >= 8192 ? 16 : block >= 2048 ? 8 : 4;
  return {block, warps};
}

/// out[r, :] = softmax(in[r, :]) for one row per program, the whole row in registers
/// (Triton tutorial 02). Columns past n_cols are masked: read as -inf, never written.
struct Softmax {
  static constexpr const char *name = "softmax";
  static constexpr auto body = [](Ptr<float> out, Ptr<float> in, I32 outRowStride, I32 inRowStride, I32 nCols,
                                  Const<int> BLOCK) {
    Value row = program_id(0);
    Value cols = arange(0, BLOCK);
    Value mask = cols < nCols;
    Value x = load(in + row * inRowStride + cols, mask, -std::numeric_limits<float>::infinity());
    Value shifted = x - max(x);
    Value num = exp(shifted);
    store(out + row * outRowStride + cols, num / sum(num), mask);
  };
  static constexpr std::array params{"out", "in", "out_row_stride", "in_row_stride", "n_cols", "BLOCK"};

  static std::vector<Variant> variants() {
    std::vector<Variant> v;
    for (int64_t n = 1; n <= kMaxRowBlock; n *= 2) v.push_back({{softmaxConfig(n).block}, softmaxConfig(n).numWarps});
    return v;
  }

  /// out[r, :cols] = softmax(in[r, :cols]) for r < rows (float32, row-major with the given
  /// row strides in elements). cols <= kMaxRowBlock: the whole row lives in registers.
  static void launch(Launcher &l, Address out, Address in, int64_t rows, int64_t cols, int64_t outRowStride,
                     int64_t inRowStride, CUstream stream = nullptr) {
    if (cols > kMaxRowBlock)
      fail(name, "cols = " + num(cols) + " exceeds kMaxRowBlock = " + num(kMaxRowBlock) +
                     " (one row per program, held in registers)");
    checkRows(name, rows, cols, inRowStride, "inRowStride");
    checkRows(name, rows, cols, outRowStride, "outRowStride");
    if (rows == 0) return;
    RowConfig p = softmaxConfig(cols);
    launchKernel<Softmax>(l, {rows}, p.numWarps, stream, out, in, int32_t(outRowStride), int32_t(inRowStride),
                          int32_t(cols), p.block);
  }
};
TILE_LIBRARY_KERNEL(Softmax);

inline const DslKernel<Softmax> &softmaxKernel() { return dslKernel<Softmax>(); }

} // namespace tile::kernels
