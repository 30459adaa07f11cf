//===- Fill.h - fill a float buffer (gradient zeroing) ---------------------===//
#pragma once

#include "tile/kernels/Relu.h" // kFlatBlock, kFlatWarps

namespace tile::kernels {

/// p[i] = value for i < n.
struct Fill {
  static constexpr const char *name = "fill_f32";
  static constexpr auto body = [](Ptr<float> p, F32 value, I32 n, Const<int> BLOCK) {
    Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
    store(p + offs, full({BLOCK}, value, DType::f32), offs < n);
  };
  static constexpr std::array params{"p", "value", "n", "BLOCK"};
  static std::vector<Variant> variants() { return {{{kFlatBlock}, kFlatWarps}}; }

  static void launch(Launcher &l, Address p, int64_t n, float value = 0.0f, CUstream stream = nullptr) {
    if (int64_t grid = elementwiseGrid(name, n, kFlatBlock))
      launchKernel<Fill>(l, {grid}, kFlatWarps, stream, p, value, int32_t(n), kFlatBlock);
  }
  /// p[i] = 0 for i < n.
  static void zero(Launcher &l, Address p, int64_t n, CUstream stream = nullptr) { launch(l, p, n, 0.0f, stream); }
};
TILE_LIBRARY_KERNEL(Fill);

} // namespace tile::kernels
