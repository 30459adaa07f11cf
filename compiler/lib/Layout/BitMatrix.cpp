//===- BitMatrix.cpp - packing coordinates into words, a layout's columns --===//
#include "BitMatrix.h"

#include "LayoutSupport.h"

#include <string>

namespace tile::layout::detail {

std::vector<int32_t> lowFirstOffsets(const std::vector<int32_t> &log2Sizes) {
  std::vector<int32_t> offsets;
  int32_t offset = 0;
  for (int32_t n : log2Sizes) {
    offsets.push_back(offset);
    offset += n;
  }
  if (offset > 64) fail("matrix operations support at most 64 bits, got " + std::to_string(offset));
  return offsets;
}

std::vector<int32_t> rowMajorOffsets(const std::vector<int32_t> &log2Sizes) {
  std::vector<int32_t> offsets(log2Sizes.size());
  int32_t offset = 0;
  for (size_t k = log2Sizes.size(); k-- > 0;) {
    offsets[k] = offset;
    offset += log2Sizes[k];
  }
  if (offset > 63) fail("reshape supports at most 63 output bits, got " + std::to_string(offset));
  return offsets;
}

uint64_t pack(const std::vector<int32_t> &values, const std::vector<int32_t> &offsets) {
  uint64_t word = 0;
  for (size_t k = 0; k < values.size(); ++k) word |= uint64_t(values[k]) << offsets[k];
  return word;
}

std::vector<int32_t> unpack(uint64_t word, const std::vector<int32_t> &offsets, const std::vector<int32_t> &log2Sizes) {
  std::vector<int32_t> values(offsets.size());
  for (size_t k = 0; k < offsets.size(); ++k)
    values[k] = int32_t((word >> offsets[k]) & ((uint64_t(1) << log2Sizes[k]) - 1));
  return values;
}

std::vector<int32_t> outLog2Sizes(const LinearLayout &l) {
  std::vector<int32_t> sizes;
  for (const auto &[name, size] : l.getOutDims()) sizes.push_back(log2Exact(size));
  return sizes;
}

std::vector<int32_t> inLog2Sizes(const LinearLayout &l) {
  std::vector<int32_t> sizes;
  for (const auto &[name, bases] : l.getBases()) sizes.push_back(int32_t(bases.size()));
  return sizes;
}

std::vector<uint64_t> matrixColumns(const LinearLayout &l) {
  std::vector<int32_t> offsets = lowFirstOffsets(outLog2Sizes(l));
  (void)lowFirstOffsets(inLog2Sizes(l)); // only checks: Echelon tracks input columns in one word too
  std::vector<uint64_t> columns;
  for (const auto &[name, bases] : l.getBases())
    for (const Basis &b : bases) columns.push_back(pack(b, offsets));
  return columns;
}

Echelon echelonOf(const LinearLayout &l) {
  Echelon e;
  std::vector<uint64_t> columns = matrixColumns(l);
  for (size_t c = 0; c < columns.size(); ++c) e.add(columns[c], int32_t(c));
  return e;
}

} // namespace tile::layout::detail
