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

/// `t` (a layout of the [cols, rows] tile) with its coordinates swapped: the same offsets for
/// the rows x cols tile it stores transposed.
LinearLayout transposeTile(const LinearLayout &t, int64_t rows, int64_t cols) {
  std::vector<LinearLayout::Basis> offset;
  for (const LinearLayout::Basis &b : t.getBases().begin()->second) offset.push_back({b[1], b[0]});
  return LinearLayout({{"offset", offset}}, {{"dim0", int32_t(rows)}, {"dim1", int32_t(cols)}});
}
} // namespace

LinearLayout swizzledShared(int64_t rows, int64_t cols, int vec, int perPhase, int maxPhase, int contiguousDim) {
  if (contiguousDim == 0) return transposeTile(swizzledShared(cols, rows, vec, perPhase, maxPhase, 1), rows, cols);
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

LinearLayout nvmmaShared(int64_t rows, int64_t cols, int elemBytes, int swizzleBytes, bool transposed) {
  if (transposed) return transposeTile(nvmmaShared(cols, rows, elemBytes, swizzleBytes, false), rows, cols);
  if (swizzleBytes != 32 && swizzleBytes != 64 && swizzleBytes != 128)
    throw std::invalid_argument("nvmma shared layout: swizzle must be 32, 64 or 128 bytes");
  const int64_t groupCols = swizzleBytes / elemBytes;
  if (groupCols < 1 || cols % groupCols || rows % 8)
    throw std::invalid_argument("nvmma shared layout: " + std::to_string(rows) + "x" + std::to_string(cols) +
                                " is not whole " + std::to_string(swizzleBytes) + "-byte rows of 8-row atoms");
  const int vec = std::max(1, 16 / elemBytes), perPhase = 128 / swizzleBytes, maxPhase = swizzleBytes / 16;
  std::vector<LinearLayout::Basis> offset;
  for (int i = 0; i < log2Of(groupCols); ++i) offset.push_back({0, int32_t(1) << i});
  for (int j = 0; j < log2Of(rows); ++j) {
    int32_t row = int32_t(1) << j;
    offset.push_back({row, int32_t((row / perPhase) % maxPhase) * vec});
  }
  for (int g = 0; g < log2Of(cols / groupCols); ++g) offset.push_back({0, int32_t(groupCols) << g});
  return LinearLayout({{"offset", offset}}, {{"dim0", int32_t(rows)}, {"dim1", int32_t(cols)}});
}

int nvmmaSwizzleFor(int64_t cols, int elemBytes) {
  for (int swizzle : {128, 64, 32})
    if ((cols * elemBytes) % swizzle == 0) return swizzle;
  return 0;
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
