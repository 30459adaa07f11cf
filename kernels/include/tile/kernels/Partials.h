//===- Partials.h - adding the partial sums of split reductions ------------===//
// Kernels that split a reduction over programs (a weight gradient's pixels, a batch's rows)
// write one partial result per split into a workspace, [splits, len] row-major; a second
// launch adds them in a fixed order, so results never depend on scheduling (no atomics).
#pragma once

#include "tile/kernels/Declare.h"

namespace tile::kernels {

namespace detail {
/// Σ_{s < splits} part[s·len + idx] for the BLOCK indices idx (masked by `mask`): SPLITS
/// partials at a time, each summed column-wise into its row of a [SPLITS, BLOCK]
/// accumulator whose rows are added last (a short dependent chain however many splits).
inline Value sumOfPartials(Value part, Value idx, Value mask, Value len, Value splits, int block, int splitsAtOnce) {
  Value acc = for_range(0, splits, splitsAtOnce, zeros({splitsAtOnce, block}, DType::f32), [&](Value s0, Value acc) {
    Value s = s0 + arange(0, splitsAtOnce);
    return acc + load(part + col(s) * len + row(idx), col(s < splits) & row(mask), 0.0f);
  });
  return sum(acc, 0);
}
/// A reduction's tile: BLOCK outputs per program, SPLITS partials added per step. Few outputs
/// over many splits want a tall tile (fewer, wider steps), many outputs a wide one.
struct PartialsTile {
  int block, splits;
};
} // namespace detail

/// out[j] = Σ_{s < splits} part[s·len + j] in a fixed order (reproducible), BLOCK outputs
/// per program.
struct SumPartials {
  static constexpr const char *name = "sum_partials";
  static constexpr auto body = [](Ptr<float> part, Ptr<float> out, I32 len, I32 splits, Const<int> BLOCK,
                                  Const<int> SPLITS) {
    Value offs = program_id(0) * BLOCK + arange(0, BLOCK);
    Value mask = offs < len;
    store(out + offs, detail::sumOfPartials(part, offs, mask, len, splits, BLOCK, SPLITS), mask);
  };
  static constexpr std::array params{"part", "out", "len", "splits", "BLOCK", "SPLITS"};
  /// Few outputs over many splits (a first conv layer's 288 weights over 883 splits: 5
  /// programs of 28 dependent steps took 22 µs) take the tall tile.
  static constexpr detail::PartialsTile kWide{64, 32}, kTall{32, 128};
  static constexpr int kWarps = 4;
  static constexpr detail::PartialsTile tile(int64_t len, int64_t splits) {
    return len <= 1024 && splits > kWide.splits ? kTall : kWide;
  }
  static std::vector<Variant> variants() {
    return {{{kWide.block, kWide.splits}, kWarps}, {{kTall.block, kTall.splits}, kWarps}};
  }

  static void launch(Launcher &l, Address part, Address out, int64_t len, int64_t splits, CUstream stream = nullptr) {
    checkRange(name, "splits", splits, 1, kMaxI32);
    const detail::PartialsTile t = tile(len, splits);
    checkRange(name, "len", len, 0, kMaxI32 - t.block);
    if ((ceilDiv(splits, t.splits) * t.splits) * len + t.block > kMaxI32)
      fail(name, "splits x len = " + num(splits) + " x " + num(len) + " exceeds int32 indexing");
    if (len == 0) return;
    launchKernel<SumPartials>(l, {ceilDiv(len, t.block)}, kWarps, stream, part, out, int32_t(len), int32_t(splits),
                              t.block, t.splits);
  }
};
TILE_LIBRARY_KERNEL(SumPartials);

} // namespace tile::kernels
