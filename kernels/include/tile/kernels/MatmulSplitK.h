//===- MatmulSplitK.h - exact-f32 C = A·B (+ bias, relu) with K split -----===//
// A matmul of few output tiles over a long K (the MNIST FC layer at batch 64: 64 x 128
// outputs, K = 3136, 8 programs of 32 x 32) leaves the GPU idle while each program walks
// all of K. Here K is split into chunks, one program per (tile, chunk) writing a partial
// product into a workspace [splits, m, n]; MatmulSplitKReduce sums the partials in
// increasing chunk order (reproducible, no atomics), adds the bias and applies relu.
// The products are Matmul<float>'s exact FMA tiles (detail::matmulProgram); only the
// order of the K sum differs.
#pragma once

#include "tile/kernels/Matmul.h"
#include "tile/kernels/Partials.h"

#include <algorithm>
#include <utility>

namespace tile::kernels {

/// part[s] = A[:, s·per : (s+1)·per] · B[s·per : (s+1)·per, :] for s = program_id(1).
struct MatmulSplitK {
  static constexpr const char *name = "matmul_f32_splitk";
  static constexpr auto body = [](Ptr<float> a, Ptr<float> b, Ptr<float> part, I32 m, I32 n, I32 k, I32 strideAm,
                                  I32 strideAk, I32 strideBk, I32 strideBn, I32 per, Const<int> BM, Const<int> BN,
                                  Const<int> BK, Const<int> GROUP_M, Const<int> TF32) {
    Value s = program_id(1);
    Value k0 = s * per;
    Value kHere = minimum(k - k0, per);
    // Traced in the order the positional call's arguments were (right to left), which keeps the IR.
    Value unitStride = constant(1, DType::i32), partial = part + s * (m * n);
    Value bChunk = b + k0 * strideBk, aChunk = a + k0 * strideAk;
    detail::matmulProgram(
        program_id(0), {aChunk, bChunk, partial, a, m, n, kHere, strideAm, strideAk, strideBk, strideBn, n, unitStride},
        {BM, BN, BK, GROUP_M, int(MatmulEpilogue::None), TF32});
  };
  static constexpr std::array params{"a",        "b",        "part", "m",  "n",  "k",  "strideAm", "strideAk",
                                     "strideBk", "strideBn", "per",  "BM", "BN", "BK", "GROUP_M",  "TF32"};
  static constexpr std::array unitParams{"strideAk", "strideBn"};
  /// Exact f32 on CUDA cores; TF32 on tensor cores (mma.sync m16n8k8).
  static constexpr MatmulConfig kTile = kMatmulCudaCore, kTf32Tile = kMatmulTensorCoreStrided;
  static constexpr const MatmulConfig &tileFor(bool tf32) { return tf32 ? kTf32Tile : kTile; }
  /// Programs wanted in all (132 SMs, several small programs each), and the least K per
  /// chunk worth a partial tile's store and reload.
  static constexpr int64_t kTargetPrograms = 528, kMinKPerSplit = 64;
  static std::vector<Variant> variants() {
    return {{{kTile.bm, kTile.bn, kTile.bk, kMatmulGroupM, 0}, kTile.numWarps},
            {{kTf32Tile.bm, kTf32Tile.bn, kTf32Tile.bk, kMatmulGroupM, 1}, kTf32Tile.numWarps}};
  }

  /// (K per chunk, a multiple of 16; chunks) for an m x n x k product.
  static std::pair<int64_t, int64_t> splitting(int64_t m, int64_t n, int64_t k, bool tf32 = false) {
    const MatmulConfig &t = tileFor(tf32);
    int64_t tiles = ceilDiv(m, t.bm) * ceilDiv(n, t.bn);
    int64_t splits = std::clamp<int64_t>(ceilDiv(kTargetPrograms, tiles), 1, std::max<int64_t>(1, k / kMinKPerSplit));
    int64_t per = ceilDiv(ceilDiv(k, splits), 16) * 16;
    return {per, ceilDiv(k, per)};
  }
  /// Whether splitting K pays: the plain matmul would not fill the GPU and K is long.
  static bool worthSplitting(int64_t m, int64_t n, int64_t k, bool tf32 = false) {
    return splitting(m, n, k, tf32).second > 1;
  }
  /// Floats of the workspace launch() needs for any m' <= m in either precision (0 when none
  /// would split): the splits shrink as m grows, so the largest need may lie below m.
  static int64_t workspaceElements(int64_t m, int64_t n, int64_t k) {
    int64_t most = 0;
    for (bool tf32 : {false, true}) {
      const MatmulConfig &tile = tileFor(tf32);
      for (int64_t t = 1; t <= ceilDiv(m, tile.bm); ++t) { // splitting() depends on m's tiles only
        int64_t mt = std::min(t * tile.bm, m), splits = splitting(mt, n, k, tf32).second;
        if (splits > 1) most = std::max(most, splits * mt * n);
      }
    }
    return most;
  }

  /// As MatmulF32::launch (C contiguous per row: p.strideCn = 1) with K split over programs
  /// when worthSplitting(); workspace: workspaceElements() floats; p.tf32: TF32 tensor-core
  /// inputs instead of exact FMA.
  static void launch(Launcher &l, const MatmulProblem &p, Address workspace, int64_t workspaceFloats,
                     CUstream stream = nullptr);
};
TILE_LIBRARY_KERNEL(MatmulSplitK);

/// c[i, j] = Σ_s part[s, i, j] (+ bias[j]) (relu) in a fixed order (reproducible): SPLITS
/// partials at a time (detail::sumOfPartials) for BLOCK elements of the m x n output per program.
struct MatmulSplitKReduce {
  static constexpr const char *name = "matmul_splitk_reduce";
  static constexpr auto body = [](Ptr<float> part, Ptr<float> bias, Ptr<float> c, I32 m, I32 n, I32 strideCm,
                                  I32 splits, Const<int> BLOCK, Const<int> SPLITS, Const<int> EPILOGUE) {
    Value idx = program_id(0) * BLOCK + arange(0, BLOCK);
    Value len = m * n, mask = idx < len;
    Value acc = detail::sumOfPartials(part, idx, mask, len, splits, BLOCK, SPLITS);
    Value i = idx / n, j = idx % n;
    if (EPILOGUE != int(MatmulEpilogue::None)) acc = acc + load(bias + j, mask, 0.0f);
    if (EPILOGUE == int(MatmulEpilogue::BiasRelu)) acc = maximum(acc, 0.0f);
    store(c + i * strideCm + j, acc, mask);
  };
  static constexpr std::array params{"part",     "bias",   "c",     "m",      "n",
                                     "strideCm", "splits", "BLOCK", "SPLITS", "EPILOGUE"};
  /// Many splits (fc1 at batch 64: 49) take the tall tile, one step instead of four.
  static constexpr detail::PartialsTile kWide{128, 16}, kTall{32, 64};
  static constexpr int kWarps = 4;
  static constexpr detail::PartialsTile tile(int64_t splits) { return splits >= 32 ? kTall : kWide; }
  static std::vector<Variant> variants() {
    std::vector<Variant> v;
    for (detail::PartialsTile t : {kWide, kTall})
      for (int epilogue = 0; epilogue < 3; ++epilogue) v.push_back({{t.block, t.splits, epilogue}, kWarps});
    return v;
  }
};
TILE_LIBRARY_KERNEL(MatmulSplitKReduce);

inline void MatmulSplitK::launch(Launcher &l, const MatmulProblem &p, Address workspace, int64_t workspaceFloats,
                                 CUstream stream) {
  detail::checkMatmulArgs(name, false, p);
  if (p.strideCn != 1) fail(name, "strideCn = " + num(p.strideCn) + ": C's rows must be contiguous (1)");
  const auto [a, b, c, bias, m, n, k, strideAm, strideAk, strideBk, strideBn, strideCm, strideCn, epilogue, tf32] = p;
  if (m == 0 || n == 0) return;
  auto [per, splits] = splitting(m, n, k, tf32);
  if (splits == 1) {
    MatmulF32::launch(l, p, stream);
    return;
  }
  const MatmulConfig &tile = tileFor(tf32);
  const detail::PartialsTile reduce = MatmulSplitKReduce::tile(splits);
  if (workspaceFloats < splits * m * n)
    fail(name, "the workspace holds " + num(workspaceFloats) + " floats; " + num(splits * m * n) +
                   " needed (workspaceElements)");
  // Masked-off lanes still form addresses up to the tile edges: bound those, and the
  // partials' offsets.
  const int64_t mEdge = ceilDiv(m, tile.bm) * tile.bm, nEdge = ceilDiv(n, tile.bn) * tile.bn;
  const int64_t kEdge = ceilDiv(k, tile.bk) * tile.bk + per;
  if ((mEdge - 1) * strideAm + (kEdge - 1) * strideAk > kMaxI32 ||
      (kEdge - 1) * strideBk + (nEdge - 1) * strideBn > kMaxI32 ||
      (ceilDiv(splits, reduce.splits) * reduce.splits) * m * n + mEdge * nEdge > kMaxI32 ||
      (mEdge - 1) * strideCm + nEdge > kMaxI32)
    fail(name, "m, n, k = " + num(m) + ", " + num(n) + ", " + num(k) + " with these strides exceed int32 indexing");
  launchKernel<MatmulSplitK>(l, {ceilDiv(m, tile.bm) * ceilDiv(n, tile.bn), splits}, tile.numWarps, stream, a, b,
                             workspace, int32_t(m), int32_t(n), int32_t(k), int32_t(strideAm), int32_t(strideAk),
                             int32_t(strideBk), int32_t(strideBn), int32_t(per), tile.bm, tile.bn, tile.bk,
                             kMatmulGroupM, tf32 ? 1 : 0);
  launchKernel<MatmulSplitKReduce>(l, {ceilDiv(m * n, reduce.block)}, MatmulSplitKReduce::kWarps, stream, workspace,
                                   bias, c, int32_t(m), int32_t(n), int32_t(strideCm), int32_t(splits), reduce.block,
                                   reduce.splits, int(epilogue));
}

} // namespace tile::kernels
