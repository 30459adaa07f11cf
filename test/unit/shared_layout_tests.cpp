// Swizzled shared-memory layouts (tile/Layout/SharedLayouts.h) against the formula they
// implement, and the bank-conflict property the ldmatrix swizzle is chosen for.
#include "tile/Layout/MmaLayouts.h"
#include "tile/Layout/SharedLayouts.h"

#include <gtest/gtest.h>

#include <set>

using tile::layout::LinearLayout;

namespace {

int64_t formulaOffset(int64_t r, int64_t c, int64_t cols, int vec, int perPhase, int maxPhase) {
  return r * cols + (((c / vec) ^ ((r / perPhase) % maxPhase)) * vec) + c % vec;
}

TEST(SharedLayout, SwizzleMatchesTheFormulaEverywhere) {
  for (auto [rows, cols, vec, perPhase, maxPhase] :
       std::vector<std::tuple<int, int, int, int, int>>{{64, 64, 8, 1, 8},
                                                        {32, 32, 8, 2, 4},
                                                        {16, 16, 8, 4, 2},
                                                        {128, 32, 4, 1, 8},
                                                        {8, 128, 8, 1, 8},
                                                        {16, 8, 8, 8, 1}}) {
    LinearLayout ll = tile::layout::swizzledShared(rows, cols, vec, perPhase, maxPhase);
    LinearLayout inv = ll.invert();
    std::set<int64_t> seen;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        auto out = inv.apply({{"dim0", r}, {"dim1", c}});
        int64_t expect = formulaOffset(r, c, cols, vec, perPhase, maxPhase);
        ASSERT_EQ(out[0].second, expect) << rows << "x" << cols << " vec " << vec << " r " << r << " c " << c;
        seen.insert(expect);
      }
    EXPECT_EQ(int64_t(seen.size()), int64_t(rows) * cols) << "a bijection onto the buffer";
  }
}

/// Hopper's shared-memory swizzle as the hardware applies it to a byte address (CUTLASS's
/// Swizzle<B, 4, 3>): the 16-byte chunk bits [4, 4 + B) XOR the bits [7, 7 + B), B = 3, 2, 1
/// for 128-, 64-, 32-byte swizzle, on a tile laid out unswizzled as column groups of
/// `swizzle` bytes, each rows x swizzle bytes, starting 1024-byte aligned.
int64_t hardwareByteOffset(int64_t r, int64_t c, int64_t rows, int elemBytes, int swizzle) {
  const int64_t groupCols = swizzle / elemBytes;
  const int64_t plain = ((c / groupCols) * rows * groupCols + r * groupCols + c % groupCols) * elemBytes;
  const int bits = swizzle == 128 ? 3 : swizzle == 64 ? 2 : 1;
  const int64_t mask = (int64_t(1) << bits) - 1;
  return plain ^ (((plain >> 7) & mask) << 4);
}

TEST(SharedLayout, NvmmaSharedIsTheHardwareSwizzle) {
  for (auto [rows, cols, elemBytes, swizzle] : std::vector<std::tuple<int, int, int, int>>{
           {64, 64, 2, 128}, {128, 32, 2, 64}, {32, 256, 2, 128}, {64, 16, 2, 32}, {8, 64, 2, 128}, {64, 32, 4, 128}}) {
    LinearLayout inv = tile::layout::nvmmaShared(rows, cols, elemBytes, swizzle).invert();
    std::set<int64_t> seen;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        const int64_t offset = inv.apply({{"dim0", r}, {"dim1", c}})[0].second;
        ASSERT_EQ(offset * elemBytes, hardwareByteOffset(r, c, rows, elemBytes, swizzle))
            << rows << "x" << cols << " swizzle " << swizzle << " r " << r << " c " << c;
        seen.insert(offset);
      }
    EXPECT_EQ(int64_t(seen.size()), int64_t(rows) * cols) << "a bijection onto the buffer";
  }
  EXPECT_EQ(tile::layout::nvmmaSwizzleFor(64, 2), 128);
  EXPECT_EQ(tile::layout::nvmmaSwizzleFor(32, 2), 64);
  EXPECT_EQ(tile::layout::nvmmaSwizzleFor(16, 2), 32);
  EXPECT_EQ(tile::layout::nvmmaSwizzleFor(8, 2), 0);
  EXPECT_THROW(tile::layout::nvmmaShared(4, 64, 2, 128), std::invalid_argument) << "rows must be whole 8-row atoms";
  EXPECT_THROW(tile::layout::nvmmaShared(8, 48, 2, 128), std::invalid_argument) << "cols must be whole 128-byte rows";
}

/// Column-major (order [0, 1]): element (r, c) sits where the row-major layout of the
/// transposed tile puts (c, r): dim0 contiguous, the swizzle's rows along dim1.
TEST(SharedLayout, ColumnMajorIsTheTransposedRowMajor) {
  for (auto [rows, cols] : {std::pair{32, 64}, {8, 16}, {64, 8}}) {
    auto s = tile::layout::ldmatrixSwizzle(rows, 4);
    LinearLayout inv = tile::layout::swizzledShared(rows, cols, s.vec, s.perPhase, s.maxPhase, 0).invert();
    std::set<int64_t> seen;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        int64_t off = inv.apply({{"dim0", r}, {"dim1", c}})[0].second;
        ASSERT_EQ(off, formulaOffset(c, r, rows, s.vec, s.perPhase, s.maxPhase)) << rows << "x" << cols;
        seen.insert(off);
      }
    EXPECT_EQ(int64_t(seen.size()), int64_t(rows) * cols) << "a bijection onto the buffer";
  }
}

TEST(SharedLayout, TooWideSwizzleIsRefused) {
  EXPECT_THROW(tile::layout::swizzledShared(16, 16, 8, 1, 8), std::invalid_argument);
}

/// The eight 16-byte rows an 8x8 ldmatrix block reads: every aligned 8-row, 8-column
/// block of a 16-bit tile lands in eight different 16-byte bank groups (of the 128-byte
/// cycle), for every tile width the library uses.
TEST(SharedLayout, LdmatrixSwizzleIsBankConflictFree) {
  for (int cols : {16, 32, 64, 128}) {
    auto s = tile::layout::ldmatrixSwizzle(cols, 2);
    LinearLayout inv = tile::layout::swizzledShared(64, cols, s.vec, s.perPhase, s.maxPhase).invert();
    for (int r0 = 0; r0 < 64; r0 += 8)
      for (int c0 = 0; c0 < cols; c0 += 8) {
        std::set<int64_t> groups;
        for (int r = r0; r < r0 + 8; ++r) {
          int64_t off = inv.apply({{"dim0", r}, {"dim1", c0}})[0].second;
          EXPECT_EQ(off % 8, 0) << "16-byte aligned row start";
          for (int c = 1; c < 8; ++c)
            EXPECT_EQ(inv.apply({{"dim0", r}, {"dim1", c0 + c}})[0].second, off + c) << "16 contiguous bytes";
          groups.insert((off * 2 / 16) % 8);
        }
        EXPECT_EQ(groups.size(), 8u) << "cols " << cols << " block (" << r0 << ", " << c0 << ")";
      }
  }
}

/// Registers of an mma operand composed with the shared layout land where the formula says.
TEST(SharedLayout, RegistersToOffsetsComposes) {
  LinearLayout a = tile::layout::mmaV2Operand(0, 2, 2, 64, 32);
  auto s = tile::layout::ldmatrixSwizzle(32, 2);
  LinearLayout shared = tile::layout::swizzledShared(64, 32, s.vec, s.perPhase, s.maxPhase);
  LinearLayout offsets = tile::layout::registersToOffsets(a, shared);
  for (int reg = 0; reg < a.getInDimSize("register"); ++reg)
    for (int lane = 0; lane < 32; ++lane)
      for (int warp = 0; warp < 4; ++warp) {
        auto coord = a.apply({{"register", reg}, {"lane", lane}, {"warp", warp}});
        auto off = offsets.apply({{"register", reg}, {"lane", lane}, {"warp", warp}});
        ASSERT_EQ(off[0].second, formulaOffset(coord[0].second, coord[1].second, 32, s.vec, s.perPhase, s.maxPhase));
      }
}

} // namespace
