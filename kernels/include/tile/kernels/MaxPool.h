//===- MaxPool.h - 2x2 stride-2 max pooling, forward and backward ---------===//
// NCHW float32. The forward records, per output, which of its window's four inputs was
// the maximum (0..3 = 2 * dy + dx, the first one on ties, as PyTorch); the backward
// writes every input gradient element: dy at the argmax, 0 elsewhere (and in the last
// row/column of an odd H/W, which no window covers), so no separate zeroing pass.
#pragma once

#include "tile/kernels/Declare.h"

namespace tile::kernels {

constexpr int kPoolBlock = 512, kPoolWarps = 4;

/// y[n, c, oh, ow] = max of x[n, c, 2oh..2oh+1, 2ow..2ow+1]; argmax (int8) its position.
struct MaxPool2dForward {
  static constexpr const char *name = "maxpool2x2_fwd";
  static constexpr auto body = [](Ptr<float> x, Ptr<float> y, Ptr<int8_t> argmax, I32 planes, I32 h, I32 w,
                                  Const<int> BLOCK) {
    Value oh = h / 2, ow = w / 2;
    Value outPlane = oh * ow;
    Value o = program_id(0) * BLOCK + arange(0, BLOCK);
    Value mask = o < planes * outPlane;
    Value plane = o / outPlane, r = o % outPlane;
    Value base = x + plane * (h * w) + (r / ow) * (2 * w) + (r % ow) * 2;
    Value best = load(base, mask, 0.0f);
    Value idx = zeros({BLOCK}, DType::i32);
    const int offsets[3][2] = {{0, 1}, {1, 0}, {1, 1}}; // (row, column) of window positions 1..3
    for (int p = 0; p < 3; ++p) {
      Value v = load(base + offsets[p][0] * w + offsets[p][1], mask, 0.0f);
      Value better = v > best;
      best = where(better, v, best);
      idx = where(better, p + 1, idx);
    }
    store(y + o, best, mask);
    store(argmax + o, cast(idx, DType::i8), mask);
  };
  static constexpr std::array params{"x", "y", "argmax", "planes", "h", "w", "BLOCK"};
  static std::vector<Variant> variants() { return {{{kPoolBlock}, kPoolWarps}}; }

  /// x [n, c, h, w] -> y, argmax [n, c, h/2, w/2] (floor: an odd last row/column is dropped).
  static void launch(Launcher &l, Address x, Address y, Address argmax, int64_t n, int64_t c, int64_t h, int64_t w,
                     CUstream stream = nullptr) {
    checkShape(n, c, h, w);
    int64_t outputs = n * c * (h / 2) * (w / 2);
    if (outputs == 0) return;
    launchKernel<MaxPool2dForward>(l, {ceilDiv(outputs, kPoolBlock)}, kPoolWarps, stream, x, y, argmax, int32_t(n * c),
                                   int32_t(h), int32_t(w), kPoolBlock);
  }

  static void checkShape(int64_t n, int64_t c, int64_t h, int64_t w) {
    checkRange(name, "n", n, 0, kMaxI32);
    checkRange(name, "c", c, 0, kMaxI32);
    checkRange(name, "h", h, 0, kMaxI32);
    checkRange(name, "w", w, 0, kMaxI32);
    if (n * c > kMaxI32 || (n * c) * h > kMaxI32 || (n * c) * h * w > kMaxI32 - kPoolBlock)
      fail(name, "n x c x h x w = " + num(n) + " x " + num(c) + " x " + num(h) + " x " + num(w) +
                     " exceeds the kernel's int32 indexing");
  }
};
TILE_LIBRARY_KERNEL(MaxPool2dForward);

/// dx[n, c, ih, iw] = dy[n, c, ih/2, iw/2] if the window's argmax is (ih%2, iw%2), else 0.
struct MaxPool2dBackward {
  static constexpr const char *name = "maxpool2x2_bwd";
  static constexpr auto body = [](Ptr<float> dy, Ptr<int8_t> argmax, Ptr<float> dx, I32 planes, I32 h, I32 w,
                                  Const<int> BLOCK) {
    Value oh = h / 2, ow = w / 2;
    Value i = program_id(0) * BLOCK + arange(0, BLOCK);
    Value mask = i < planes * (h * w);
    Value plane = i / (h * w), r = i % (h * w);
    Value ih = r / w, iw = r % w;
    Value covered = mask & (ih / 2 < oh) & (iw / 2 < ow);
    Value o = plane * (oh * ow) + (ih / 2) * ow + iw / 2;
    Value at = cast(load(argmax + o, covered, 0), DType::i32) == (ih % 2) * 2 + iw % 2;
    store(dx + i, where(covered & at, load(dy + o, covered, 0.0f), 0.0f), mask);
  };
  static constexpr std::array params{"dy", "argmax", "dx", "planes", "h", "w", "BLOCK"};
  static std::vector<Variant> variants() { return {{{kPoolBlock}, kPoolWarps}}; }

  /// dy, argmax [n, c, h/2, w/2] -> dx [n, c, h, w] (every element written).
  static void launch(Launcher &l, Address dy, Address argmax, Address dx, int64_t n, int64_t c, int64_t h, int64_t w,
                     CUstream stream = nullptr) {
    MaxPool2dForward::checkShape(n, c, h, w);
    int64_t inputs = n * c * h * w;
    if (inputs == 0) return;
    launchKernel<MaxPool2dBackward>(l, {ceilDiv(inputs, kPoolBlock)}, kPoolWarps, stream, dy, argmax, dx,
                                    int32_t(n * c), int32_t(h), int32_t(w), kPoolBlock);
  }
};
TILE_LIBRARY_KERNEL(MaxPool2dBackward);

} // namespace tile::kernels
