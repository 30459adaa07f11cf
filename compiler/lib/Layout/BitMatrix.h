//===- BitMatrix.h - a layout as a GF(2) bit matrix, and its echelon form ===//
// Private to compiler/lib/Layout. The matrix algorithms (rank, inversion, free
// variables, reshape) pack a vector of coordinates into one 64-bit word, one bit field
// per dimension, and reduce the layout's columns to echelon form.
#ifndef TILE_LIB_LAYOUT_BITMATRIX_H
#define TILE_LIB_LAYOUT_BITMATRIX_H

#include "tile/Layout/LinearLayout.h"

#include <array>
#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

namespace tile::layout::detail {

/// Bit offset of each dimension when a vector of coordinates is packed into one word,
/// first dimension lowest. Only the matrix algorithms use this packing.
std::vector<int32_t> lowFirstOffsets(const std::vector<int32_t> &log2Sizes);
/// The same packing with the LAST dimension lowest: row-major linearization.
std::vector<int32_t> rowMajorOffsets(const std::vector<int32_t> &log2Sizes);
uint64_t pack(const std::vector<int32_t> &values, const std::vector<int32_t> &offsets);
std::vector<int32_t> unpack(uint64_t word, const std::vector<int32_t> &offsets, const std::vector<int32_t> &log2Sizes);
/// log2 of each output dimension's size, in order.
std::vector<int32_t> outLog2Sizes(const LinearLayout &l);
/// The number of bits of each input dimension, in order.
std::vector<int32_t> inLog2Sizes(const LinearLayout &l);

/// The layout's bit matrix, one packed output word per input bit (input dimensions in
/// order, low bits first): bit c of the flattened input selects column c.
std::vector<uint64_t> matrixColumns(const LinearLayout &l);

/// An echelon form over GF(2) built one column at a time. Each row is kept under its
/// pivot (its highest set bit) together with the set of input columns XORing to it,
/// which is what inversion needs to express outputs in terms of inputs.
class Echelon {
public:
  /// Adds input column `column` with value `v`; false when v is in the span of the
  /// columns added before (a free variable).
  bool add(uint64_t v, int32_t column) {
    auto [rest, combo] = reduce(v, uint64_t(1) << column);
    if (!rest) return false;
    int32_t pivot = 63 - std::countl_zero(rest);
    value[pivot] = rest;
    combination[pivot] = combo;
    ++numRows;
    return true;
  }

  /// XORs rows into v until no pivot bit is left, tracking the input columns used.
  /// Descending pivots work because a row has no bits above its pivot.
  std::pair<uint64_t, uint64_t> reduce(uint64_t v, uint64_t combo) const {
    for (int32_t p = 63; p >= 0; --p) {
      if (((v >> p) & 1) && value[p]) {
        v ^= value[p];
        combo ^= combination[p];
      }
    }
    return {v, combo};
  }

  int32_t rank() const { return numRows; }

private:
  std::array<uint64_t, 64> value{}, combination{};
  int32_t numRows = 0;
};

/// The echelon form of all of the layout's columns.
Echelon echelonOf(const LinearLayout &l);

} // namespace tile::layout::detail

#endif
