//===- SharedLayouts.cpp - shared-memory tiles as linear layouts -----------===//
#include "tile/Layout/SharedLayouts.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tile::layout {

namespace {
int log2Of(int64_t v) {
  int l = 0;
  while ((int64_t(1) << l) < v) ++l;
  if (v <= 0 || (int64_t(1) << l) != v) throw std::invalid_argument("shared layout: sizes must be powers of two");
  return l;
}
} // namespace

LinearLayout swizzledShared(int64_t rows, int64_t cols, int vec, int perPhase, int maxPhase) {
  log2Of(vec), log2Of(perPhase), log2Of(maxPhase);
  if (int64_t(vec) * maxPhase > cols)
    throw std::invalid_argument("shared layout: vec * maxPhase (" + std::to_string(vec * maxPhase) +
                                ") exceeds the row of " + std::to_string(cols));
  std::vector<LinearLayout::Basis> offset;
  for (int i = 0; i < log2Of(cols); ++i) offset.push_back({0, int32_t(1) << i});
  // Row bit j moves down 2^j rows and XORs the row's chunk index with its phase bits.
  for (int j = 0; j < log2Of(rows); ++j) {
    int32_t row = int32_t(1) << j;
    offset.push_back({row, int32_t((row / perPhase) % maxPhase) * vec});
  }
  return LinearLayout({{"offset", offset}}, {{"dim0", int32_t(rows)}, {"dim1", int32_t(cols)}});
}

Swizzle ldmatrixSwizzle(int64_t cols, int elemBytes) {
  int vec = std::max(1, 16 / elemBytes);
  int64_t rowBytes = cols * elemBytes;
  if (cols < vec) return {1, 1, 1};
  int perPhase = int(std::max<int64_t>(1, 128 / rowBytes));
  int maxPhase = int(std::min<int64_t>(8 / perPhase, cols / vec));
  return {vec, perPhase, std::max(1, maxPhase)};
}

LinearLayout registersToOffsets(const LinearLayout &regs, const LinearLayout &shared) {
  return regs.compose(shared.invert());
}

} // namespace tile::layout
