// mma.sync m16n8k16 (f16/bf16) and m16n8k8 (tf32) fragments as linear layouts
// (tile/Layout/MmaLayouts.h) against the PTX ISA's fragment tables, transcribed here for
// every register, lane and warp.
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
const Case kCases[] = {{1, 1, 16, 8, 16},   {2, 2, 32, 16, 16},  {4, 1, 128, 64, 32}, {2, 4, 64, 128, 64},
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

/// Every register of every lane and warp of operand layout `l` against the PTX table `want`.
template <class Want> void expectFragments(const LinearLayout &l, int warps, const char *what, Want want) {
  for (int w = 0; w < warps; ++w)
    for (int lane = 0; lane < 32; ++lane)
      for (int r = 0; r < l.getInDimSize("register"); ++r) {
        auto got = l.applyFlat({r, lane, w});
        Coord c = want(r, lane, w);
        ASSERT_EQ(got[0], c.row) << what << ": r " << r << " lane " << lane << " warp " << w;
        ASSERT_EQ(got[1], c.col) << what << ": r " << r << " lane " << lane << " warp " << w;
      }
  EXPECT_TRUE(l.isSurjective()) << what;
}

TEST(MmaLayouts, OperandsMatchThePtxFragments) {
  for (const Case &c : kCases) {
    const int warps = c.wm * c.wn;
    expectFragments(tile::layout::mmaV2Operand(0, c.wm, c.wn, c.m, c.k), warps, "a",
                    [&](int r, int lane, int w) { return operandA(r, lane, w, c.wm, c.k); });
    expectFragments(tile::layout::mmaV2Operand(1, c.wm, c.wn, c.k, c.n), warps, "b",
                    [&](int r, int lane, int w) { return operandB(r, lane, w, c.wm, c.wn, c.k); });
  }
}

/// PTX ISA, "Matrix fragments for mma.m16n8k8" with .tf32: a0 (g, t), a1 (g + 8, t),
/// a2 (g, t + 4), a3 (g + 8, t + 4); b0 (t, g), b1 (t + 4, g).
Coord operandATf32(int r, int lane, int warp, int wm, int k) {
  int frag, kRep, mRep;
  split(r, 4, k / 8, frag, kRep, mRep);
  int group = lane >> 2, inGroup = lane % 4;
  int row = group + (frag & 1) * 8, col = inGroup + (frag >> 1) * 4;
  return {row + 16 * (warp % wm) + 16 * wm * mRep, col + 8 * kRep};
}

Coord operandBTf32(int r, int lane, int warp, int wm, int wn, int k) {
  int frag, kRep, nRep;
  split(r, 2, k / 8, frag, kRep, nRep);
  int group = lane >> 2, inGroup = lane % 4;
  return {inGroup + frag * 4 + 8 * kRep, group + 8 * (warp / wm) + 8 * wn * nRep};
}

TEST(MmaLayouts, Tf32OperandsMatchThePtxFragments) {
  const Case cases[] = {
      {1, 1, 16, 8, 8}, {2, 2, 32, 16, 8}, {4, 1, 128, 64, 32}, {2, 4, 64, 128, 16}, {2, 2, 128, 128, 32}};
  for (const Case &c : cases) {
    LinearLayout a = tile::layout::mmaV2Operand(0, c.wm, c.wn, c.m, c.k, 32);
    LinearLayout b = tile::layout::mmaV2Operand(1, c.wm, c.wn, c.k, c.n, 32);
    ASSERT_EQ(a.getInDimSize("register"), c.m * c.k / (32 * c.wm)) << "4 registers per 16x8 tile";
    ASSERT_EQ(b.getInDimSize("register"), c.k * c.n / (32 * c.wn)) << "2 registers per 8x8 tile";
    expectFragments(a, c.wm * c.wn, "a", [&](int r, int lane, int w) { return operandATf32(r, lane, w, c.wm, c.k); });
    expectFragments(b, c.wm * c.wn, "b",
                    [&](int r, int lane, int w) { return operandBTf32(r, lane, w, c.wm, c.wn, c.k); });
  }
}

TEST(MmaLayouts, ShapesTheWarpsDoNotCoverAreRefused) {
  EXPECT_THROW(tile::layout::mmaV2Accumulator(4, 1, 32, 8), std::invalid_argument);
  EXPECT_THROW(tile::layout::mmaV2Operand(0, 1, 1, 16, 8), std::invalid_argument);
  EXPECT_THROW(tile::layout::mmaV2Operand(0, 1, 1, 16, 4, 32), std::invalid_argument) << "tf32 K below 8";
  EXPECT_THROW(tile::layout::mmaV2Operand(1, 1, 1, 8, 8, 8), std::invalid_argument) << "8-bit elements";
}

} // namespace
