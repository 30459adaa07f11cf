//===- Linear.h - fully connected layer: y = x·Wᵀ + b, and its gradients ---===//
// W is [out, in] (as PyTorch). The three products run on the library matmul (transposes as
// strides), exact f32 FMA or, with tf32, TF32 tensor cores; the bias gradient is a column sum.
#pragma once

#include "tile/kernels/Matmul.h"
#include "tile/kernels/MatmulSplitK.h"

namespace tile::kernels {

/// out[j] = Σ_i in[i * rowStride + j] for j < cols: BN columns per program, rows summed
/// in BM-row tiles in a fixed order (reproducible).
struct ColumnSum {
  static constexpr const char *name = "column_sum";
  static constexpr auto body = [](Ptr<float> in, Ptr<float> out, I32 rows, I32 cols, I32 rowStride, Const<int> BM,
                                  Const<int> BN) {
    Value cs = program_id(0) * BN + arange(0, BN);
    Value colMask = row(cs < cols);
    Value acc = for_range(0, rows, BM, zeros({BM, BN}, DType::f32), [&](Value r0, Value acc) {
      Value rs = r0 + arange(0, BM);
      return acc + load(in + col(rs) * rowStride + row(cs), col(rs < rows) & colMask, 0.0f);
    });
    store(out + cs, sum(acc, 0), cs < cols);
  };
  static constexpr std::array params{"in", "out", "rows", "cols", "row_stride", "BM", "BN"};
  /// Tiles of 4096 elements: few columns (a classifier's 10 classes) in tall 256 x 16 tiles,
  /// so one program walks the rows in few dependent steps; else 64 x 64.
  struct Tile {
    int bm, bn;
  };
  static constexpr Tile kNarrow{256, 16}, kWide{64, 64};
  static constexpr int kWarps = 4;
  static constexpr Tile tile(int64_t cols) { return cols <= kNarrow.bn ? kNarrow : kWide; }
  static std::vector<Variant> variants() {
    return {{{kNarrow.bm, kNarrow.bn}, kWarps}, {{kWide.bm, kWide.bn}, kWarps}};
  }

  static void launch(Launcher &l, Address in, Address out, int64_t rows, int64_t cols, int64_t rowStride,
                     CUstream stream = nullptr) {
    checkRange(name, "rows", rows, 0, kMaxI32);
    checkRange(name, "cols", cols, 0, kMaxI32);
    if (rowStride < cols) fail(name, "rowStride = " + num(rowStride) + " is smaller than cols = " + num(cols));
    const Tile t = tile(cols);
    if (ceilDiv(rows, t.bm) * t.bm * rowStride + ceilDiv(cols, t.bn) * t.bn > kMaxI32)
      fail(name, "rows * rowStride = " + num(rows) + " * " + num(rowStride) + " exceeds the kernel's int32 indexing");
    if (cols == 0) return;
    launchKernel<ColumnSum>(l, {ceilDiv(cols, t.bn)}, kWarps, stream, in, out, int32_t(rows), int32_t(cols),
                            int32_t(rowStride), t.bm, t.bn);
  }
};
TILE_LIBRARY_KERNEL(ColumnSum);

/// Shape-level launchers of a linear layer over MatmulF32 and ColumnSum (x [batch, in],
/// W [out, in], b [out], y [batch, out], all contiguous).
struct Linear {
  /// y = x·Wᵀ + b, then relu if `relu`.
  static void forward(Launcher &l, Address x, Address w, Address b, Address y, int64_t batch, int64_t in, int64_t out,
                      bool relu, CUstream stream = nullptr, bool tf32 = false) {
    MatmulF32::launch(l, forwardProblem(x, w, b, y, batch, in, out, relu, tf32, /*transposedWeight=*/false), stream);
  }
  /// As forward(), splitting the batch's long K over programs when few output tiles would
  /// leave the GPU idle (MatmulSplitK; workspace: forwardWorkspaceElements() floats).
  static void forward(Launcher &l, Address x, Address w, Address b, Address y, int64_t batch, int64_t in, int64_t out,
                      bool relu, Address workspace, int64_t workspaceFloats, CUstream stream = nullptr,
                      bool tf32 = false) {
    MatmulSplitK::launch(l, forwardProblem(x, w, b, y, batch, in, out, relu, tf32, /*transposedWeight=*/false),
                         workspace, workspaceFloats, stream);
  }
  /// As the split-K forward() with the weights transposed, wT [in, out] (a copy made with
  /// Transpose): the product's B then has unit stride along N, which the tensor-core tiles
  /// stage with cp.async and read with ldmatrix (W's own order loads it element by element).
  static void forwardFromTransposedWeight(Launcher &l, Address x, Address wT, Address b, Address y, int64_t batch,
                                          int64_t in, int64_t out, bool relu, Address workspace,
                                          int64_t workspaceFloats, CUstream stream = nullptr, bool tf32 = false) {
    MatmulSplitK::launch(l, forwardProblem(x, wT, b, y, batch, in, out, relu, tf32, /*transposedWeight=*/true),
                         workspace, workspaceFloats, stream);
  }
  static int64_t forwardWorkspaceElements(int64_t batch, int64_t in, int64_t out) {
    return MatmulSplitK::workspaceElements(batch, out, in);
  }
  /// dx = dy·W.
  static void backwardData(Launcher &l, Address dy, Address w, Address dx, int64_t batch, int64_t in, int64_t out,
                           CUstream stream = nullptr, bool tf32 = false) {
    MatmulF32::launch(l,
                      {.a = dy,
                       .b = w,
                       .c = dx,
                       .bias = dx,
                       .m = batch,
                       .n = in,
                       .k = out,
                       .strideAm = out,
                       .strideAk = 1,
                       .strideBk = in,
                       .strideBn = 1,
                       .strideCm = in,
                       .strideCn = 1,
                       .tf32 = tf32},
                      stream);
  }
  /// dW = dyᵀ·x.
  static void backwardWeight(Launcher &l, Address dy, Address x, Address dw, int64_t batch, int64_t in, int64_t out,
                             CUstream stream = nullptr, bool tf32 = false) {
    MatmulF32::launch(l, backwardWeightProblem(dy, x, dw, batch, in, out, tf32, /*transposedGradient=*/false), stream);
  }
  /// As backwardWeight(), splitting the batch (the product's K) over programs when few output
  /// tiles would leave the GPU idle (workspace: backwardWeightWorkspaceElements() floats).
  static void backwardWeight(Launcher &l, Address dy, Address x, Address dw, int64_t batch, int64_t in, int64_t out,
                             Address workspace, int64_t workspaceFloats, CUstream stream = nullptr, bool tf32 = false) {
    MatmulSplitK::launch(l, backwardWeightProblem(dy, x, dw, batch, in, out, tf32, /*transposedGradient=*/false),
                         workspace, workspaceFloats, stream);
  }
  /// As the split-K backwardWeight() from dyT = dyᵀ [out, batch] (LinearCrossEntropy writes it):
  /// unit strides along the product's K for A and N for B.
  static void backwardWeightFromTransposedGradient(Launcher &l, Address dyT, Address x, Address dw, int64_t batch,
                                                   int64_t in, int64_t out, Address workspace, int64_t workspaceFloats,
                                                   CUstream stream = nullptr, bool tf32 = false) {
    MatmulSplitK::launch(l, backwardWeightProblem(dyT, x, dw, batch, in, out, tf32, /*transposedGradient=*/true),
                         workspace, workspaceFloats, stream);
  }
  static int64_t backwardWeightWorkspaceElements(int64_t batch, int64_t in, int64_t out) {
    return MatmulSplitK::workspaceElements(out, in, batch);
  }
  /// db = Σ over the batch of dy.
  static void backwardBias(Launcher &l, Address dy, Address db, int64_t batch, int64_t out, CUstream stream = nullptr) {
    ColumnSum::launch(l, dy, db, batch, out, out, stream);
  }

private:
  /// y [batch, out] = x [batch, in]·W + b with W [out, in] (its transpose read in place), or
  /// `transposedWeight`: wT [in, out].
  static MatmulProblem forwardProblem(Address x, Address w, Address b, Address y, int64_t batch, int64_t in,
                                      int64_t out, bool relu, bool tf32, bool transposedWeight) {
    return {.a = x,
            .b = w,
            .c = y,
            .bias = b,
            .m = batch,
            .n = out,
            .k = in,
            .strideAm = in,
            .strideAk = 1,
            .strideBk = transposedWeight ? out : 1,
            .strideBn = transposedWeight ? 1 : in,
            .strideCm = out,
            .strideCn = 1,
            .epilogue = relu ? MatmulEpilogue::BiasRelu : MatmulEpilogue::Bias,
            .tf32 = tf32};
  }
  /// dW [out, in] = dyᵀ·x with dy [batch, out] (its transpose read in place), or
  /// `transposedGradient`: dyT [out, batch].
  static MatmulProblem backwardWeightProblem(Address dy, Address x, Address dw, int64_t batch, int64_t in, int64_t out,
                                             bool tf32, bool transposedGradient) {
    return {.a = dy,
            .b = x,
            .c = dw,
            .bias = dw,
            .m = out,
            .n = in,
            .k = batch,
            .strideAm = transposedGradient ? batch : 1,
            .strideAk = transposedGradient ? 1 : out,
            .strideBk = in,
            .strideBn = 1,
            .strideCm = in,
            .strideCn = 1,
            .tf32 = tf32};
  }
};

} // namespace tile::kernels
