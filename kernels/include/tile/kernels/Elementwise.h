//===- Elementwise.h - elementwise kernels --------------------------------===//
#pragma once

#include "tile/kernels/Declare.h"

namespace tile::kernels {

/// z = x + y over n elements, BLOCK per program (Triton tutorial 01).
struct VectorAdd {
  static constexpr const char *name = "vector_add";
  static constexpr auto body = [](Ptr<float> x, Ptr<float> y, Ptr<float> z, I32 n, Const<int> BLOCK) {
    Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
    Value mask = offs < n;
    store(z + offs, load(x + offs, mask) + load(y + offs, mask), mask);
  };
  static constexpr std::array params{"x", "y", "z", "n", "BLOCK"};

  /// 1024 elements per program on 4 warps.
  static constexpr int kBlock = 1024, kNumWarps = 4;
  static std::vector<Variant> variants() { return {{{kBlock}, kNumWarps}}; }

  /// z[i] = x[i] + y[i] for i < n (float32). n == 0 launches nothing.
  static void launch(Launcher &l, Address x, Address y, Address z, int64_t n, CUstream stream = nullptr) {
    // The last program's offsets reach cdiv(n, BLOCK) * BLOCK - 1, which must fit int32.
    if (n < 0 || n > kMaxI32 - kBlock + 1) fail(name, "n = " + num(n) + " is outside [0, 2^31 - " + num(kBlock) + "]");
    if (n == 0) return;
    launchKernel<VectorAdd>(l, {ceilDiv(n, kBlock)}, kNumWarps, stream, x, y, z, int32_t(n), kBlock);
  }
};
TILE_LIBRARY_KERNEL(VectorAdd);

/// The launch shape of VectorAdd, for callers that launch the DSL kernel themselves.
struct ElementwiseConfig {
  static constexpr int block = VectorAdd::kBlock;
  static constexpr int numWarps = VectorAdd::kNumWarps;
};
inline const DslKernel<VectorAdd> &vectorAddKernel() { return dslKernel<VectorAdd>(); }

} // namespace tile::kernels
