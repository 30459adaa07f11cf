//===- PlantedBugKernels.h - kernels with a deliberate bug, for the tools that must find it -===//
// Not part of any library or differential test. gpu-check.sh runs planted_oob_store under
// compute-sanitizer memcheck and requires the report to name the DSL line marked below: the
// proof that the PTX's .file/.loc directives reach the tools a user debugs with.
#pragma once

#include "tile/tile.h"

namespace tile::testing {

/// y[i] = 1 for i in [0, n] -- one element too many: the classic `<=` bound. The store writes
/// y[n], 4 bytes past an n-element buffer.
inline const auto &plantedOutOfBoundsStoreKernel() {
  static const auto k = tile::kernel("planted_oob_store", [](Ptr<float> y, I32 n, Const<int> BLOCK) {
    Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
    store(y + offs, full({BLOCK}, 1.0f, DType::f32), offs <= n); // PLANTED-OOB-STORE
  });
  return k;
}

} // namespace tile::testing
