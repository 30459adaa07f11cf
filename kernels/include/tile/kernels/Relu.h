//===- Relu.h - relu forward and backward ---------------------------------===//
#pragma once

#include "tile/kernels/Declare.h"

namespace tile::kernels {

/// Block and warps of the flat elementwise kernels (relu, SGD, fill).
constexpr int kFlatBlock = 1024, kFlatWarps = 4;

/// y = max(x, 0) over n elements (y may be x).
struct ReluForward {
  static constexpr const char *name = "relu_fwd";
  static constexpr auto body = [](Ptr<float> x, Ptr<float> y, I32 n, Const<int> BLOCK) {
    Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
    Value mask = offs < n;
    store(y + offs, maximum(load(x + offs, mask), 0.0f), mask);
  };
  static constexpr std::array params{"x", "y", "n", "BLOCK"};
  static std::vector<Variant> variants() { return {{{kFlatBlock}, kFlatWarps}}; }

  static void launch(Launcher &l, Address x, Address y, int64_t n, CUstream stream = nullptr) {
    if (int64_t grid = elementwiseGrid(name, n, kFlatBlock))
      launchKernel<ReluForward>(l, {grid}, kFlatWarps, stream, x, y, int32_t(n), kFlatBlock);
  }
};
TILE_LIBRARY_KERNEL(ReluForward);

/// dx = dy where the forward output y (or, equally, its input) is > 0, else 0 (dx may be
/// dy).
struct ReluBackward {
  static constexpr const char *name = "relu_bwd";
  static constexpr auto body = [](Ptr<float> y, Ptr<float> dy, Ptr<float> dx, I32 n, Const<int> BLOCK) {
    Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
    Value mask = offs < n;
    store(dx + offs, where(load(y + offs, mask, 0.0f) > 0.0f, load(dy + offs, mask), 0.0f), mask);
  };
  static constexpr std::array params{"y", "dy", "dx", "n", "BLOCK"};
  static std::vector<Variant> variants() { return {{{kFlatBlock}, kFlatWarps}}; }

  static void launch(Launcher &l, Address y, Address dy, Address dx, int64_t n, CUstream stream = nullptr) {
    if (int64_t grid = elementwiseGrid(name, n, kFlatBlock))
      launchKernel<ReluBackward>(l, {grid}, kFlatWarps, stream, y, dy, dx, int32_t(n), kFlatBlock);
  }
};
TILE_LIBRARY_KERNEL(ReluBackward);

} // namespace tile::kernels
