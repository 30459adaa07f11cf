//===- MmaLayouts.cpp - mma.sync (v2) fragments as linear layouts ----------===//
#include "tile/Layout/MmaLayouts.h"

#include <stdexcept>
#include <string>

namespace tile::layout {

namespace {

using Basis = LinearLayout::Basis;

int log2Exact(int64_t v, const char *what) {
  int l = 0;
  while ((int64_t(1) << l) < v) ++l;
  if (v <= 0 || (int64_t(1) << l) != v) throw std::invalid_argument(std::string(what) + " must be a power of two");
  return l;
}

/// Bases that step `step`, 2 step, 4 step, ... along `dim` (0: rows, 1: columns).
void repeat(std::vector<Basis> &out, int64_t count, int64_t step, int dim) {
  for (int i = 0; i < log2Exact(count, "repetition count"); ++i) {
    Basis b = {0, 0};
    b[dim] = int32_t(step << i);
    out.push_back(b);
  }
}

LinearLayout make(std::vector<Basis> regs, std::vector<Basis> lanes, std::vector<Basis> warps, int64_t rows,
                  int64_t cols) {
  return LinearLayout({{"register", std::move(regs)}, {"lane", std::move(lanes)}, {"warp", std::move(warps)}},
                      {{"dim0", int32_t(rows)}, {"dim1", int32_t(cols)}});
}

void checkCover(int64_t extent, int64_t cover, const char *what) {
  if (extent < cover || extent % cover)
    throw std::invalid_argument(std::string("mma layout: ") + what + " of " + std::to_string(extent) +
                                " is not a multiple of the warps' coverage " + std::to_string(cover));
}

} // namespace

LinearLayout mmaV2Accumulator(int warpsM, int warpsN, int64_t m, int64_t n) {
  checkCover(m, 16 * warpsM, "M");
  checkCover(n, 8 * warpsN, "N");
  std::vector<Basis> regs = {{0, 1}, {8, 0}};
  repeat(regs, n / (8 * warpsN), 8 * warpsN, 1);
  repeat(regs, m / (16 * warpsM), 16 * warpsM, 0);
  std::vector<Basis> lanes = {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}};
  std::vector<Basis> warps;
  repeat(warps, warpsM, 16, 0);
  repeat(warps, warpsN, 8, 1);
  return make(regs, lanes, warps, m, n);
}

LinearLayout mmaV2Operand(int opIdx, int warpsM, int warpsN, int64_t rows, int64_t cols, int elemBits) {
  if (elemBits != 16 && elemBits != 32) throw std::invalid_argument("mma.sync operands are 16- or 32-bit elements");
  // One instruction's K: 16 for 16-bit inputs (m16n8k16), 8 for tf32 (m16n8k8).
  const int64_t instrK = elemBits == 16 ? 16 : 8;
  std::vector<Basis> regs, lanes, warps;
  if (opIdx == 0) { // a [M, K]
    checkCover(rows, 16 * warpsM, "M");
    checkCover(cols, instrK, "K");
    if (elemBits == 16) {
      regs = {{0, 1}, {8, 0}, {0, 8}};
      lanes = {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}};
    } else { // a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
      regs = {{8, 0}, {0, 4}};
      lanes = {{0, 1}, {0, 2}, {1, 0}, {2, 0}, {4, 0}};
    }
    repeat(regs, cols / instrK, instrK, 1);
    repeat(regs, rows / (16 * warpsM), 16 * warpsM, 0);
    repeat(warps, warpsM, 16, 0);
    for (int i = 0; i < log2Exact(warpsN, "warpsN"); ++i) warps.push_back({0, 0}); // copies along N
  } else {                                                                         // b [K, N]
    checkCover(rows, instrK, "K");
    checkCover(cols, 8 * warpsN, "N");
    if (elemBits == 16) {
      regs = {{1, 0}, {8, 0}};
      lanes = {{2, 0}, {4, 0}, {0, 1}, {0, 2}, {0, 4}};
    } else { // b0 (t, g), b1 (t + 4, g)
      regs = {{4, 0}};
      lanes = {{1, 0}, {2, 0}, {0, 1}, {0, 2}, {0, 4}};
    }
    repeat(regs, rows / instrK, instrK, 0);
    repeat(regs, cols / (8 * warpsN), 8 * warpsN, 1);
    for (int i = 0; i < log2Exact(warpsM, "warpsM"); ++i) warps.push_back({0, 0}); // copies along M
    repeat(warps, warpsN, 8, 1);
  }
  return make(regs, lanes, warps, rows, cols);
}

} // namespace tile::layout
