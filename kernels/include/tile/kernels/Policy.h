//===- Policy.h - launch shapes of the library kernels --------------------===//
// Header-only and free of the compiler: the JIT launchers and the AOT stubs pick
// block sizes, warps and grids the same way, so the AOT variant list (kernels/aot)
// covers exactly what the launchers ask for.
#pragma once

#include <cstdint>

namespace tile::kernels {

constexpr int64_t nextPowerOf2(int64_t v) {
  int64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

/// Vector add: 1024 elements per program on 4 warps (Triton tutorial 01).
struct ElementwiseConfig {
  static constexpr int block = 1024;
  static constexpr int numWarps = 4;
};

/// Row-wise kernels hold one row per program: the block is the next power of two of
/// the row length, with more warps for longer rows so each thread keeps <= 32 values.
struct RowConfig {
  int block;
  int numWarps;
};
constexpr int kMaxRowBlock = 16384;

constexpr RowConfig softmaxConfig(int64_t nCols) {
  int block = static_cast<int>(nextPowerOf2(nCols));
  int warps = block >= 8192 ? 16 : block >= 2048 ? 8 : 4;
  return {block, warps};
}

/// LayerNorm loops over a row in chunks of at most 64 KB / element (Triton tutorial 05).
constexpr RowConfig layerNormConfig(int64_t nCols) {
  int64_t block = nextPowerOf2(nCols);
  if (block > 4096) block = 4096;
  int warps = block >= 2048 ? 8 : block >= 1024 ? 4 : 2;
  return {static_cast<int>(block), warps};
}

/// Matmul tiles: f16/bf16 on tensor cores (mma.sync), f32 on CUDA cores (FMA).
struct MatmulConfig {
  int bm, bn, bk, numWarps;
};
constexpr MatmulConfig kMatmulTensorCore{64, 64, 64, 4}; // best of a sweep without spills (bench/NOTES.md)
constexpr MatmulConfig kMatmulCudaCore{32, 32, 8, 4};

} // namespace tile::kernels
