//===- Sgd.h - plain SGD update --------------------------------------------===//
#pragma once

#include "tile/kernels/Relu.h" // kFlatBlock, kFlatWarps

namespace tile::kernels {

/// p -= lr * g over a flat buffer of n parameters (no momentum, no weight decay).
struct SgdUpdate {
  static constexpr const char *name = "sgd_update";
  static constexpr auto body = [](Ptr<float> p, Ptr<float> g, F32 lr, I32 n, Const<int> BLOCK) {
    Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
    Value mask = offs < n;
    store(p + offs, load(p + offs, mask) - lr * load(g + offs, mask), mask);
  };
  static constexpr std::array params{"p", "g", "lr", "n", "BLOCK"};
  static std::vector<Variant> variants() { return {{{kFlatBlock}, kFlatWarps}}; }

  static void launch(Launcher &l, Address p, Address g, float lr, int64_t n, CUstream stream = nullptr) {
    if (int64_t grid = elementwiseGrid(name, n, kFlatBlock))
      launchKernel<SgdUpdate>(l, {grid}, kFlatWarps, stream, p, g, lr, int32_t(n), kFlatBlock);
  }
};
TILE_LIBRARY_KERNEL(SgdUpdate);

} // namespace tile::kernels
