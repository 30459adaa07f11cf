// The example's kernels, declared for tile_add_aot_kernels (the form of tile/kernels/Declare.h):
// a name, the DSL body, the parameters' names and the variants to compile ahead of time.
#pragma once

#include "tile/kernels/Declare.h"

#include <cmath>

namespace example {

using namespace tile;

struct RowSoftmax {
  static constexpr const char *name = "row_softmax";
  // One program per row; BLOCK >= n columns, the tail masked (-inf, so it adds nothing).
  static constexpr auto body = [](Ptr<float> x, Ptr<float> y, I32 n, Const<int> BLOCK) {
    Value cols = arange(0, BLOCK);
    Value mask = cols < n;
    Value offs = program_id(0) * n + cols;
    Value row = load(x + offs, mask, -INFINITY);
    Value e = exp(row - max(row, 0));
    store(y + offs, e / sum(e, 0), mask);
  };
  static constexpr std::array params{"x", "y", "n", "BLOCK"};
  // BLOCK = 256 on 4 warps and 1024 on 8 (rows up to 1024 columns).
  static std::vector<kernels::Variant> variants() { return {{{256}, 4}, {{1024}, 8}}; }
};

} // namespace example

// The name as seen from the global namespace: tile_add_aot_kernels' generator names it so.
TILE_LIBRARY_KERNEL(example::RowSoftmax);
