//===- LinearCrossEntropy.h - a classifier's head, forward and backward in one pass ===//
// The last linear layer of a classifier, its cross-entropy loss, and the backward of both and
// of the relu that produced the layer's input, in one kernel. For x [batch, in] (a relu's output
// when relu is set), W [classes, in], b [classes] and int32 labels in [0, classes):
//   logits  = x·Wᵀ + b                                     stored (predictions read them)
//   loss    = mean over rows of -log_softmax(logits)[label]
//   dlogits = (softmax(logits) - onehot(label)) / batch    stored
//   dW = dlogitsᵀ·x,  db = Σ_rows dlogits
//   dx = dlogits·W, zeroed where x ≤ 0 when relu (the relu's backward: x is its output)
//   dxSum = Σ_rows dx                                      (the bias gradient of the layer before)
//   dxT = dxᵀ [in, batch], if asked for                    (its weight gradient as a unit-stride product)
// A model's tail is then two launches where it was seven (the layer's forward, the loss, the
// layer's three gradients, the relu's backward, the previous layer's bias gradient): at small
// batches launches, not FLOPs, are its cost. The products are exact f32 (FMA in increasing k).
//
// A program takes one tile of kRows rows. A batch of one tile is one launch that writes dW,
// db, dxSum and the mean loss itself; else each program writes its sums into a workspace and
// LinearCrossEntropyReduce adds them in a fixed order (reproducible, no atomics).
#pragma once

#include "tile/kernels/Partials.h"

#include <algorithm>

namespace tile::kernels {

struct LinearCrossEntropy {
  static constexpr const char *name = "linear_cross_entropy";
  /// A program per kRows-row tile; products over `in` in kChunk-column chunks.
  static constexpr int kMaxClasses = 32, kChunk = 16, kRows = 16;
  static constexpr auto body =
      [](Ptr<float> x, Ptr<float> weight, Ptr<float> bias, Ptr<int32_t> labels, Ptr<float> logits, Ptr<float> dlogits,
         Ptr<float> dx, Ptr<float> dxT, Ptr<float> dweight, Ptr<float> dbias, Ptr<float> dxSum, Ptr<float> meanLoss,
         Ptr<float> partial, I32 batch, I32 in, I32 classes, I32 relu, I32 transposed, Const<int> BB, Const<int> BC) {
        // The FMA dot holds a thread's whole K of both operands in registers, so the products
        // over `in` run in KC-column chunks (loops, one chunk live at a time), and a program
        // takes one BB-row tile, whose dW and dxSum are then complete chunk by chunk (no
        // accumulator carried across row tiles).
        Value rows = program_id(0) * BB + arange(0, BB), cs = arange(0, BC);
        Value rMask = rows < batch, cMask = cs < classes, zMask = col(rMask) & row(cMask);
        auto xChunk = [&](Value ks) { return load(x + col(rows) * in + row(ks), col(rMask) & row(ks < in), 0.0f); };
        auto wChunk = [&](Value ks) { return load(weight + col(cs) * in + row(ks), col(cMask) & row(ks < in), 0.0f); };
        Value z = for_range(0, in, kChunk, zeros({BB, BC}, DType::f32), [&](Value k0, Value z) {
          Value ks = k0 + arange(0, kChunk);
          return dot(xChunk(ks), trans(wChunk(ks)), z);
        });
        z = z + row(load(bias + cs, cMask, 0.0f));
        store(logits + col(rows) * classes + row(cs), z, zMask);
        // Masked entries count as a large negative logit (not -inf: a fully masked row stays
        // finite) and vanish in exp; their dlogits are zeroed so they add nothing below.
        Value batchF = cast(batch, DType::f32);
        Value shifted = where(zMask, z, -1e30f);
        shifted = shifted - col(max(shifted, 1));
        Value logp = shifted - col(log(sum(exp(shifted), 1)));
        Value onehot = row(cs) == col(load(labels + rows, rMask, 0));
        Value loss = sum(-sum(where(onehot & zMask, logp, 0.0f), 1)) / batchF;
        Value dz = where(zMask, (exp(logp) - cast(onehot, DType::f32)) / batchF, 0.0f);
        store(dlogits + col(rows) * classes + row(cs), dz, zMask);
        Value dzT = trans(dz);
        // One program: the results themselves. Several: this program's sums, laid out as
        // LinearCrossEntropyReduce reads them (dW, db, dxSum, its share of the mean loss).
        Value alone = num_programs(0) == 1;
        Value mine = partial + program_id(0) * (classes * in + classes + in + 1);
        Value dw = where(alone, dweight, mine), db = where(alone, dbias, mine + classes * in);
        Value dxs = where(alone, dxSum, mine + classes * in + classes);
        Value lossOut = where(alone, meanLoss, mine + classes * in + classes + in);
        for_range(0, in, kChunk, [&](Value k0) {
          Value ks = k0 + arange(0, kChunk), kMask = ks < in;
          Value xc = xChunk(ks);
          Value g = dot(dz, wChunk(ks), zeros({BB, kChunk}, DType::f32)); // dx [BB, KC]
          g = where((relu != 0) & (xc <= 0.0f), 0.0f, g);
          store(dx + col(rows) * in + row(ks), g, col(rMask) & row(kMask));
          store(dxT + row(ks) * batch + col(rows), g, col(rMask) & row(kMask) & (transposed != 0));
          store(dxs + ks, sum(g, 0), kMask);
          store(dw + col(cs) * in + row(ks), dot(dzT, xc, zeros({BC, kChunk}, DType::f32)), col(cMask) & row(kMask));
        });
        store(db + cs, sum(dz, 0), cMask);
        store(lossOut, loss);
      };
  static constexpr std::array params{"x",    "weight",  "bias",  "labels",     "logits",    "dlogits", "dx",
                                     "dx_t", "dweight", "dbias", "dx_sum",     "mean_loss", "partial", "batch",
                                     "in",   "classes", "relu",  "transposed", "BB",        "BC"};

  /// BC: the classes rounded up to a power of two (at least 16); 32 classes take 8 warps
  /// (on 4 their FMA operands spill).
  static constexpr int classBlock(int64_t classes) { return int(nextPowerOf2(classes < 16 ? 16 : classes)); }
  static constexpr int warps(int bc) { return bc > 16 ? 8 : 4; }
  static std::vector<Variant> variants() {
    std::vector<Variant> v;
    for (int bc = 16; bc <= kMaxClasses; bc *= 2) v.push_back({{kRows, bc}, warps(bc)});
    return v;
  }
  static int64_t programs(int64_t batch) { return ceilDiv(batch, kRows); }
  /// Floats of the per-program sums a launch over `batch` rows writes (0 for one program).
  static int64_t workspaceElements(int64_t batch, int64_t in, int64_t classes) {
    return programs(batch) > 1 ? programs(batch) * (classes * in + classes + in + 1) : 0;
  }

  /// x, dx [batch, in]; weight, dweight [classes, in]; bias, dbias [classes]; labels [batch]
  /// (in [0, classes): another label gives a wrong loss silently, check on the host);
  /// logits, dlogits [batch, classes]; dxSum [in]; meanLoss [1]; dxT [in, batch] or null. dx
  /// may not alias x.
  static void launch(Launcher &l, Address x, Address weight, Address bias, Address labels, Address logits,
                     Address dlogits, Address dx, Address dweight, Address dbias, Address dxSum, Address meanLoss,
                     int64_t batch, int64_t in, int64_t classes, bool relu, Address workspace, int64_t workspaceFloats,
                     Address dxT = nullptr, CUstream stream = nullptr);
};
TILE_LIBRARY_KERNEL(LinearCrossEntropy);

/// Adds LinearCrossEntropy's per-program sums [programs, classes·in + classes + in + 1] in a
/// fixed order and scatters them to dW, db, dxSum and the mean loss.
struct LinearCrossEntropyReduce {
  static constexpr const char *name = "linear_cross_entropy_reduce";
  static constexpr auto body = [](Ptr<float> partial, Ptr<float> dweight, Ptr<float> dbias, Ptr<float> dxSum,
                                  Ptr<float> meanLoss, I32 in, I32 classes, I32 programs, Const<int> BLOCK,
                                  Const<int> SPLITS) {
    Value dwLen = classes * in, len = dwLen + classes + in + 1;
    Value idx = program_id(0) * BLOCK + arange(0, BLOCK);
    Value v = detail::sumOfPartials(partial, idx, idx < len, len, programs, BLOCK, SPLITS);
    Value db = idx - dwLen, dxs = db - classes;
    store(dweight + idx, v, idx < dwLen);
    store(dbias + db, v, (db >= 0) & (db < classes));
    store(dxSum + dxs, v, (dxs >= 0) & (dxs < in));
    store(meanLoss + (dxs - in), v, dxs == in);
  };
  static constexpr std::array params{"partial", "dweight", "dbias",    "dx_sum", "mean_loss",
                                     "in",      "classes", "programs", "BLOCK",  "SPLITS"};
  static constexpr detail::PartialsTile kTile{128, 16};
  static constexpr int kWarps = 4;
  static std::vector<Variant> variants() { return {{{kTile.block, kTile.splits}, kWarps}}; }
};
TILE_LIBRARY_KERNEL(LinearCrossEntropyReduce);

inline void LinearCrossEntropy::launch(Launcher &l, Address x, Address weight, Address bias, Address labels,
                                       Address logits, Address dlogits, Address dx, Address dweight, Address dbias,
                                       Address dxSum, Address meanLoss, int64_t batch, int64_t in, int64_t classes,
                                       bool relu, Address workspace, int64_t workspaceFloats, Address dxT,
                                       CUstream stream) {
  checkRange(name, "batch", batch, 1, kMaxI32);
  checkRange(name, "in", in, 1, kMaxI32);
  checkRange(name, "classes", classes, 1, kMaxClasses);
  const int64_t tiles = programs(batch), len = classes * in + classes + in + 1;
  // Masked lanes still form addresses one tile past the ends.
  if ((tiles * kRows + kRows) * std::max(in, classes) + kChunk > kMaxI32 || (tiles + 1) * len > kMaxI32)
    fail(name, "batch x in = " + num(batch) + " x " + num(in) + " exceeds the kernel's int32 indexing");
  const int64_t need = workspaceElements(batch, in, classes);
  if (workspaceFloats < need)
    fail(name, "the workspace holds " + num(workspaceFloats) + " floats; " + num(need) + " needed (workspaceElements)");
  const int bc = classBlock(classes);
  launchKernel<LinearCrossEntropy>(l, {tiles}, warps(bc), stream, x, weight, bias, labels, logits, dlogits, dx, dxT,
                                   dweight, dbias, dxSum, meanLoss, workspace, int32_t(batch), int32_t(in),
                                   int32_t(classes), int32_t(relu), int32_t(dxT.ptr() != 0), kRows, bc);
  if (tiles == 1) return;
  using R = LinearCrossEntropyReduce;
  launchKernel<R>(l, {ceilDiv(len, R::kTile.block)}, R::kWarps, stream, workspace, dweight, dbias, dxSum, meanLoss,
                  int32_t(in), int32_t(classes), int32_t(tiles), R::kTile.block, R::kTile.splits);
}

} // namespace tile::kernels
