//===- Transpose.h - out = inᵀ for a row-major matrix ---------------------===//
#pragma once

#include "tile/kernels/Declare.h"

namespace tile::kernels {

/// out[c, r] = in[r, c] for an M x N row-major float32 matrix (out is N x M row-major),
/// one BM x BN tile per program. The load is contiguous along the tile's rows, the store
/// along its columns: the compiler gives each its own layout (tile-assign-layouts) and
/// moves the tile between them through shared memory, so both are 16-byte accesses.
struct Transpose {
  static constexpr const char *name = "transpose";
  static constexpr auto body = [](Ptr<float> in, Ptr<float> out, I32 m, I32 n, Const<int> BM, Const<int> BN) {
    Value rows = program_id(0) * BM + arange(0, BM);
    Value cols = program_id(1) * BN + arange(0, BN);
    Value mask = (col(rows) < m) & (row(cols) < n);
    store(out + row(cols) * m + col(rows), load(in + col(rows) * n + row(cols), mask), mask);
  };
  static constexpr std::array params{"in", "out", "m", "n", "BM", "BN"};

  static constexpr int kBM = 64, kBN = 64, kNumWarps = 4;
  static std::vector<Variant> variants() { return {{{kBM, kBN}, kNumWarps}}; }

  /// out = inᵀ; in is m x n, out n x m, both row-major and dense. Either extent 0 launches nothing.
  static void launch(Launcher &l, Address in, Address out, int64_t m, int64_t n, CUstream stream = nullptr) {
    checkRange(name, "m", m, 0, kMaxI32);
    checkRange(name, "n", n, 0, kMaxI32);
    if (m == 0 || n == 0) return;
    // Masked-off lanes still form addresses up to the tile edges: bound those.
    if ((ceilDiv(m, kBM) * kBM) * (ceilDiv(n, kBN) * kBN) > kMaxI32)
      fail(name, "m x n = " + num(m) + " x " + num(n) + " exceeds the kernel's int32 indexing");
    launchKernel<Transpose>(l, {ceilDiv(m, kBM), ceilDiv(n, kBN)}, kNumWarps, stream, in, out, int32_t(m), int32_t(n),
                            kBM, kBN);
  }
};
TILE_LIBRARY_KERNEL(Transpose);

} // namespace tile::kernels
