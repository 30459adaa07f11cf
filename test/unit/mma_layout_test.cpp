// mma.sync m16n8k16 fragments as linear layouts (tile/Layout/MmaLayouts.h) against the
// PTX ISA's fragment tables, transcribed here for every register, lane and warp.
#include "tile/Layout/MmaLayouts.h"

#include <gtest/gtest.h>

#include <set>

using tile::layout::LinearLayout;

namespace {

struct Coord {
  int row, col;
};

/// Decomposes register r as the layouts number them: fragment bits, then the
/// repetitions of `inner` (fastest), then of `outer`.
void split(int r, int fragmentRegs, int innerReps, int &frag, int &inner, int &outer) {
  frag = r % fragmentRegs;
  inner = (r / fragmentRegs) % innerReps;
  outer = r / (fragmentRegs * innerReps);
}

/// PTX ISA, "Matrix fragments for mma.m16n8k16 with floating point type".
Coord accumulator(int r, int lane, int warp, int wm, int wn, int n) {
  int frag, nRep, mRep;
  split(r, 4, n / (8 * wn), frag, nRep, mRep);
  int group = lane >> 2, inGroup = lane % 4;
  int row = group + (frag >= 2 ? 8 : 0), col = inGroup * 2 + (frag & 1);
  int warpM = warp % wm, warpN = warp / wm;
  return {row + 16 * warpM + 16 * wm * mRep, col + 8 * warpN + 8 * wn * nRep};
}

Coord operandA(int r, int lane, int warp, int wm, int k) {
  int frag, kRep, mRep;
  split(r, 8, k / 16, frag, kRep, mRep);
  int group = lane >> 2, inGroup = lane % 4;
  // a0,a1: (g, 2t + i); a2,a3: (g + 8, ..); a4,a5: (g, 2t + 8 + i); a6,a7: (g + 8, 2t + 8 + i)
  int row = group + ((frag >> 1) & 1) * 8, col = inGroup * 2 + (frag & 1) + (frag >> 2) * 8;
  return {row + 16 * (warp % wm) + 16 * wm * mRep, col + 16 * kRep};
}

Coord operandB(int r, int lane, int warp, int wm, int wn, int k) {
  int frag, kRep, nRep;
  split(r, 4, k / 16, frag, kRep, nRep);
  int group = lane >> 2, inGroup = lane % 4;
  // b0,b1: (2t + i, g); b2,b3: (2t + 8 + i, g)
  int row = inGroup * 2 + (frag & 1) + (frag >> 1) * 8, col = group;
  return {row + 16 * kRep, col + 8 * (warp / wm) + 8 * wn * nRep};
}

struct Case {
  int wm, wn, m, n, k;
};
const Case kCases[] = {{1, 1, 16, 8, 16}, {2, 2, 32, 16, 16}, {4, 1, 128, 64, 32}, {2, 4, 64, 128, 64},
                       {1, 4, 16, 256, 16}, {8, 1, 256, 8, 128}, {2, 2, 128, 128, 32}};

TEST(MmaLayouts, AccumulatorMatchesThePtxFragments) {
  for (const Case &c : kCases) {
    LinearLayout l = tile::layout::mmaV2Accumulator(c.wm, c.wn, c.m, c.n);
    ASSERT_EQ(l.getInDimSize("register"), c.m * c.n / (32 * c.wm * c.wn));
    std::set<std::pair<int, int>> seen;
    for (int w = 0; w < c.wm * c.wn; ++w)
      for (int lane = 0; lane < 32; ++lane)
        for (int r = 0; r < l.getInDimSize("register"); ++r) {
          auto got = l.applyFlat({r, lane, w});
          Coord want = accumulator(r, lane, w, c.wm, c.wn, c.n);
          ASSERT_EQ(got[0], want.row) << "r " << r << " lane " << lane << " warp " << w;
          ASSERT_EQ(got[1], want.col) << "r " << r << " lane " << lane << " warp " << w;
          seen.insert({got[0], got[1]});
        }
    EXPECT_EQ(int(seen.size()), c.m * c.n) << "every element held exactly once";
  }
}

TEST(MmaLayouts, OperandsMatchThePtxFragments) {
  for (const Case &c : kCases) {
    LinearLayout a = tile::layout::mmaV2Operand(0, c.wm, c.wn, c.m, c.k);
    LinearLayout b = tile::layout::mmaV2Operand(1, c.wm, c.wn, c.k, c.n);
    for (int w = 0; w < c.wm * c.wn; ++w)
      for (int lane = 0; lane < 32; ++lane) {
        for (int r = 0; r < a.getInDimSize("register"); ++r) {
          auto got = a.applyFlat({r, lane, w});
          Coord want = operandA(r, lane, w, c.wm, c.k);
          ASSERT_EQ(got[0], want.row) << "a: r " << r << " lane " << lane << " warp " << w;
          ASSERT_EQ(got[1], want.col) << "a: r " << r << " lane " << lane << " warp " << w;
        }
        for (int r = 0; r < b.getInDimSize("register"); ++r) {
          auto got = b.applyFlat({r, lane, w});
          Coord want = operandB(r, lane, w, c.wm, c.wn, c.k);
          ASSERT_EQ(got[0], want.row) << "b: r " << r << " lane " << lane << " warp " << w;
          ASSERT_EQ(got[1], want.col) << "b: r " << r << " lane " << lane << " warp " << w;
        }
      }
    EXPECT_TRUE(a.isSurjective() && b.isSurjective());
  }
}

TEST(MmaLayouts, ShapesTheWarpsDoNotCoverAreRefused) {
  EXPECT_THROW(tile::layout::mmaV2Accumulator(4, 1, 32, 8), std::invalid_argument);
  EXPECT_THROW(tile::layout::mmaV2Operand(0, 1, 1, 16, 8), std::invalid_argument);
}

} // namespace
