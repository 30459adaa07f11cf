//===- Loss.h - log-softmax + negative log-likelihood, fused --------------===//
#pragma once

#include "tile/kernels/Declare.h"

namespace tile::kernels {

/// Cross-entropy on logits [B, C] (row-major) with int32 labels in [0, C): per sample
/// loss[b] = -log_softmax(logits[b])[label[b]], the mean loss (one float), and its
/// gradient dlogits = (softmax - onehot(label)) / B, in one kernel. One program walks the
/// batch in BB-row tiles (the mean is summed in a fixed order: reproducible).
struct CrossEntropy {
  static constexpr const char *name = "log_softmax_nll";
  static constexpr auto body = [](Ptr<float> logits, Ptr<int32_t> labels, Ptr<float> loss, Ptr<float> meanLoss,
                                  Ptr<float> dlogits, I32 batch, I32 classes, Const<int> BB, Const<int> BC) {
    Value cols = arange(0, BC);
    Value colMask = row(cols < classes);
    Value batchF = cast(batch, DType::f32);
    Value total = for_range(0, batch, BB, zeros({BB}, DType::f32), [&](Value r0, Value acc) {
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
    store(meanLoss, sum(total) / batchF);
  };
  static constexpr std::array params{"logits", "labels", "loss", "mean_loss", "dlogits", "batch", "classes",
                                     "BB",     "BC"};

  /// Tiles of 1024 logits: BC the next power of two of the classes (>= 16), BB = 1024 / BC
  /// rows (the widest, 16 x 64, keeps ptxas at ~100 registers).
  static constexpr int kMaxClasses = 64, kWarps = 4;
  static constexpr int classBlock(int64_t classes) { return int(nextPowerOf2(classes < 16 ? 16 : classes)); }
  static constexpr int rowBlock(int bc) { return 1024 / bc; }
  static std::vector<Variant> variants() {
    std::vector<Variant> v;
    for (int bc = 16; bc <= kMaxClasses; bc *= 2) v.push_back({{rowBlock(bc), bc}, kWarps});
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
    const int bc = classBlock(classes);
    launchKernel<CrossEntropy>(l, {1}, kWarps, stream, logits, labels, loss, meanLoss, dlogits, int32_t(batch),
                               int32_t(classes), rowBlock(bc), bc);
  }
};
TILE_LIBRARY_KERNEL(CrossEntropy);

} // namespace tile::kernels
