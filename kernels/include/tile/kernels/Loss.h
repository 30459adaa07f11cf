//===- Loss.h - log-softmax + negative log-likelihood, fused --------------===//
#pragma once

#include "tile/kernels/Declare.h"

namespace tile::kernels {

/// out[0] = Σ x[0..n) / n, summed in BLOCK-wide columns in a fixed order (reproducible).
struct MeanOf {
  static constexpr const char *name = "mean_of";
  static constexpr auto body = [](Ptr<float> x, Ptr<float> out, I32 n, Const<int> BLOCK) {
    Value acc = for_range(0, n, BLOCK, zeros({BLOCK}, DType::f32), [&](Value i0, Value acc) {
      Value i = i0 + arange(0, BLOCK);
      return acc + load(x + i, i < n, 0.0f);
    });
    store(out, sum(acc) / cast(n, DType::f32));
  };
  static constexpr std::array params{"x", "out", "n", "BLOCK"};
  static constexpr int kBlock = 1024, kWarps = 4;
  static std::vector<Variant> variants() { return {{{kBlock}, kWarps}}; }

  static void launch(Launcher &l, Address x, Address out, int64_t n, CUstream stream = nullptr) {
    checkRange(name, "n", n, 1, kMaxI32 - kBlock);
    launchKernel<MeanOf>(l, {1}, kWarps, stream, x, out, int32_t(n), kBlock);
  }
};
TILE_LIBRARY_KERNEL(MeanOf);

/// Cross-entropy on logits [B, C] (row-major) with int32 labels in [0, C): per sample
/// loss[b] = -log_softmax(logits[b])[label[b]], the mean loss (one float), and its
/// gradient dlogits = (softmax - onehot(label)) / B. PER_TILE = 0: one program walks the batch
/// in BB-row tiles and writes the mean too (a batch of one tile: one launch). PER_TILE = 1: a
/// program per tile, and MeanOf averages the losses after (a large batch in parallel). Either
/// way the mean is summed in a fixed order: reproducible.
struct CrossEntropy {
  static constexpr const char *name = "log_softmax_nll";
  static constexpr auto body = [](Ptr<float> logits, Ptr<int32_t> labels, Ptr<float> loss, Ptr<float> meanLoss,
                                  Ptr<float> dlogits, I32 batch, I32 classes, Const<int> BB, Const<int> BC,
                                  Const<int> PER_TILE) {
    Value cols = arange(0, BC);
    Value colMask = row(cols < classes);
    Value batchF = cast(batch, DType::f32);
    Value first = PER_TILE ? program_id(0) * BB : constant(0, DType::i32);
    Value last = PER_TILE ? minimum(first + BB, batch) : Value(batch);
    Value total = for_range(first, last, BB, zeros({BB}, DType::f32), [&](Value r0, Value acc) {
      Value rows = r0 + arange(0, BB);
      Value rowMask = rows < batch;
      Value mask = col(rowMask) & colMask;
      Value offs = col(rows) * classes + row(cols);
      // Masked entries read as a large negative number (not -inf: a fully masked row
      // stays finite) and vanish in exp.
      Value x = load(logits + offs, mask, -1e30f);
      Value shifted = x - col(max(x, 1));
      Value logp = shifted - col(log(sum(exp(shifted), 1)));
      Value onehot = row(cols) == col(load(labels + rows, rowMask, 0));
      Value l = -sum(where(onehot & mask, logp, 0.0f), 1);
      store(loss + rows, l, rowMask);
      store(dlogits + offs, (exp(logp) - cast(onehot, DType::f32)) / batchF, mask);
      return acc + where(rowMask, l, 0.0f);
    });
    if (PER_TILE == 0) store(meanLoss, sum(total) / batchF);
  };
  static constexpr std::array params{"logits", "labels",  "loss", "mean_loss", "dlogits",
                                     "batch",  "classes", "BB",   "BC",        "PER_TILE"};

  /// Tiles of 1024 logits: BC the next power of two of the classes (>= 16), BB = 1024 / BC
  /// rows (the widest, 16 x 64, keeps ptxas at ~100 registers).
  static constexpr int kMaxClasses = 64, kWarps = 4;
  static constexpr int classBlock(int64_t classes) { return int(nextPowerOf2(classes < 16 ? 16 : classes)); }
  static constexpr int rowBlock(int bc) { return 1024 / bc; }
  static std::vector<Variant> variants() {
    std::vector<Variant> v;
    for (int bc = 16; bc <= kMaxClasses; bc *= 2)
      for (int perTile = 0; perTile < 2; ++perTile) v.push_back({{rowBlock(bc), bc, perTile}, kWarps});
    return v;
  }

  /// logits, dlogits [batch, classes]; labels, loss [batch]; meanLoss [1]. Labels must lie
  /// in [0, classes) (a sample with another label gets loss = 0 wrongly: check on the host).
  static void launch(Launcher &l, Address logits, Address labels, Address loss, Address meanLoss, Address dlogits,
                     int64_t batch, int64_t classes, CUstream stream = nullptr) {
    checkRange(name, "batch", batch, 1, kMaxI32);
    checkRange(name, "classes", classes, 1, kMaxClasses);
    if (batch * classes > kMaxI32 - 1024 * kMaxClasses)
      fail(name, "batch x classes = " + num(batch) + " x " + num(classes) + " exceeds the kernel's int32 indexing");
    const int bc = classBlock(classes), bb = rowBlock(bc);
    const int64_t tiles = ceilDiv(batch, bb);
    launchKernel<CrossEntropy>(l, {tiles}, kWarps, stream, logits, labels, loss, meanLoss, dlogits, int32_t(batch),
                               int32_t(classes), bb, bc, tiles > 1 ? 1 : 0);
    if (tiles > 1) MeanOf::launch(l, loss, meanLoss, batch, stream);
  }
};
TILE_LIBRARY_KERNEL(CrossEntropy);

} // namespace tile::kernels
