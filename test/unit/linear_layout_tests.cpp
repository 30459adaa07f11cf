// tile::layout::LinearLayout: the GF(2) algebra on hand-computed and seeded random
// layouts, and the blocked/slice constructors against a literal transcription of the
// blocked formula (LinearLayout::blocked's documentation, which is the spec; slices drop
// the registers that held nothing new).
#include "tile/Layout/LinearLayout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

using namespace tile::layout;
using LL = LinearLayout;

namespace {

// --- Helpers -------------------------------------------------------------------------

/// Every input of a layout, values in input-dimension order.
std::vector<std::vector<int32_t>> allInputs(const LL &l) {
  std::vector<std::vector<int32_t>> inputs{{}};
  for (const std::string &name : l.getInDimNames()) {
    std::vector<std::vector<int32_t>> next;
    for (const auto &prefix : inputs)
      for (int32_t v = 0; v < l.getInDimSize(name); ++v) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    inputs = std::move(next);
  }
  return inputs;
}

/// Every output of a layout, coordinates in output-dimension order.
std::vector<std::vector<int32_t>> allOutputs(const LL &l) {
  std::vector<std::vector<int32_t>> outputs{{}};
  for (const auto &[name, size] : l.getOutDims()) {
    std::vector<std::vector<int32_t>> next;
    for (const auto &prefix : outputs)
      for (int32_t v = 0; v < size; ++v) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    outputs = std::move(next);
  }
  return outputs;
}

/// A layout with uniformly random bases; dimension sizes given as bit counts.
LL randomLayout(std::mt19937 &rng, const std::vector<std::pair<std::string, int>> &inBits,
                const std::vector<std::pair<std::string, int>> &outBits) {
  LL::NamedValues outDims;
  for (const auto &[name, bits] : outBits) outDims.emplace_back(name, 1 << bits);
  LL::BasesT bases;
  for (const auto &[name, bits] : inBits) {
    std::vector<LL::Basis> list;
    for (int i = 0; i < bits; ++i) {
      LL::Basis b;
      for (const auto &[outName, size] : outDims) b.push_back(int32_t(rng() % uint32_t(size)));
      list.push_back(b);
    }
    bases.emplace_back(name, list);
  }
  return LL(bases, outDims);
}

/// The identity on a layout's input dimensions: what composing with an inverse gives.
LL identityOnInputs(const LL &l) {
  LL id;
  for (const std::string &name : l.getInDimNames()) id = id * LL::identity1D(l.getInDimSize(name), name, name);
  return id;
}

/// Splits `total` bits at random over the given dimension names.
std::vector<std::pair<std::string, int>> randomSplit(std::mt19937 &rng, int total,
                                                     const std::vector<std::string> &names) {
  std::vector<std::pair<std::string, int>> split;
  for (const std::string &name : names) split.emplace_back(name, 0);
  for (int i = 0; i < total; ++i) split[rng() % names.size()].second++;
  return split;
}

std::string throwMessage(const std::function<void()> &f) {
  try {
    f();
  } catch (const std::invalid_argument &e) { return e.what(); }
  return "<no std::invalid_argument thrown>";
}

// --- Algebra ---------------------------------------------------------------------------

TEST(LinearLayout, Identity1DMapsEachInputToItself) {
  LL id = LL::identity1D(16, "lane", "dim0");
  EXPECT_EQ(id.getInDimSize("lane"), 16);
  EXPECT_EQ(id.getOutDimSize("dim0"), 16);
  for (int32_t x = 0; x < 16; ++x) EXPECT_EQ(id.apply({{"lane", x}}), (LL::NamedValues{{"dim0", x}}));
  EXPECT_TRUE(id.isInjective());
  EXPECT_TRUE(id.isSurjective());
  EXPECT_EQ(id.getFreeVariableMasks(), (LL::NamedValues{{"lane", 0}}));
}

TEST(LinearLayout, Zeros1DReplicatesEveryInput) {
  LL zeros = LL::zeros1D(8, "warp", "dim0");
  EXPECT_EQ(zeros.getInDimSize("warp"), 8);
  EXPECT_EQ(zeros.getOutDimSize("dim0"), 1);
  for (int32_t x = 0; x < 8; ++x) EXPECT_EQ(zeros.applyFlat({x}), std::vector<int32_t>{0});
  EXPECT_TRUE(zeros.isSurjective());
  EXPECT_FALSE(zeros.isInjective());
  EXPECT_EQ(zeros.getFreeVariableMasks(), (LL::NamedValues{{"warp", 0b111}}));
}

TEST(LinearLayout, EmptyIsTheUnitOfTheProduct) {
  LL l = LL::identity1D(4, "register", "dim0") * LL::zeros1D(2, "lane", "dim1");
  EXPECT_EQ(LL::empty() * l, l);
  EXPECT_EQ(l * LL::empty(), l);
  EXPECT_EQ(LL::empty().getNumInDims(), 0);
  EXPECT_EQ(LL::empty().getTotalOutDimSize(), 1);
  EXPECT_TRUE(LL::empty().apply({}).empty());
}

TEST(LinearLayout, ApplyXorsTheBasesOfSetBits) {
  LL l({{"register", {{0, 1}, {1, 0}}}, {"lane", {{0, 2}, {2, 0}, {0, 0}}}}, {{"dim0", 4}, {"dim1", 4}});
  // register=3 -> (0,1)^(1,0); lane=3 -> (0,2)^(2,0); lane bit 2 contributes nothing.
  EXPECT_EQ(l.apply({{"register", 3}, {"lane", 0}}), (LL::NamedValues{{"dim0", 1}, {"dim1", 1}}));
  EXPECT_EQ(l.apply({{"lane", 7}, {"register", 1}}), (LL::NamedValues{{"dim0", 2}, {"dim1", 3}}));
  EXPECT_EQ(l.applyFlat({2, 5}), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(l.getBasis("lane", 1), (LL::Basis{2, 0}));
  EXPECT_EQ(l.getBasis("register", 0, "dim1"), 1);
  EXPECT_EQ(l.getTotalInDimSize(), 32);
  EXPECT_EQ(l.getTotalOutDimSize(), 16);
  EXPECT_EQ(l.getInDimNames(), (std::vector<std::string>{"register", "lane"}));
  EXPECT_EQ(l.getOutDimNames(), (std::vector<std::string>{"dim0", "dim1"}));
}

TEST(LinearLayout, ProductOfDistinctDimensionsKeepsBothSides) {
  LL l = LL::identity1D(4, "register", "dim1") * LL::identity1D(8, "lane", "dim0");
  LL expected({{"register", {{1, 0}, {2, 0}}}, {"lane", {{0, 1}, {0, 2}, {0, 4}}}}, {{"dim1", 4}, {"dim0", 8}});
  EXPECT_EQ(l, expected);
}

TEST(LinearLayout, ProductConcatenatesSharedDimensionsLhsLow) {
  EXPECT_EQ(LL::identity1D(2, "r", "d") * LL::identity1D(4, "r", "d"), LL::identity1D(8, "r", "d"));
  // The same object on both sides: the second copy still goes above the first.
  LL two = LL::identity1D(2, "r", "d");
  EXPECT_EQ(two * two, LL::identity1D(4, "r", "d"));
  // A shared output only: rhs coordinates shifted above lhs's.
  EXPECT_EQ(LL::identity1D(4, "register", "d") * LL::identity1D(2, "lane", "d"),
            LL({{"register", {{1}, {2}}}, {"lane", {{4}}}}, {{"d", 8}}));
  EXPECT_EQ(LL::zeros1D(2, "lane", "d") * LL::identity1D(4, "register", "d"),
            LL({{"lane", {{0}}}, {"register", {{1}, {2}}}}, {{"d", 4}}));
}

TEST(LinearLayout, ProductMergesDimensionOrders) {
  LL rhs = LL::identity1D(2, "l", "dim0") * LL::identity1D(2, "l", "dim1");
  LL l = LL::identity1D(4, "r", "dim1") * rhs;
  EXPECT_EQ(l.getOutDimNames(), (std::vector<std::string>{"dim0", "dim1"}));
  EXPECT_EQ(l.getOutDimSize("dim1"), 8);
  EXPECT_EQ(l.getBasis("l", 1), (LL::Basis{0, 4}));
  LL xy = LL::identity1D(2, "a", "x") * LL::identity1D(2, "a", "y");
  LL yx = LL::identity1D(2, "a", "y") * LL::identity1D(2, "a", "x");
  EXPECT_NE(throwMessage([&] { (void)(xy * yx); }).find("different orders"), std::string::npos);
}

TEST(LinearLayout, ComposeHandExample) {
  // register bits -> dim0 bits, then a bit rotation on dim0.
  LL inner = LL::identity1D(8, "register", "dim0");
  LL rotate({{"dim0", {{2}, {4}, {1}}}}, {{"out", 8}});
  LL composed = inner.compose(rotate);
  EXPECT_EQ(composed, LL({{"register", {{2}, {4}, {1}}}}, {{"out", 8}}));
  EXPECT_EQ(inner.compose(LL::identity1D(8, "dim0", "dim0")), inner);
}

TEST(LinearLayout, ComposeMatchesApplyingBothOnRandomLayouts) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 40; ++trial) {
    LL inner = randomLayout(rng, {{"a", 3}, {"b", 2}}, {{"x", 2}, {"y", 3}});
    // Outer lists its inputs in another order, and x larger than inner's x.
    LL outer = randomLayout(rng, {{"y", 3}, {"x", 3}}, {{"p", 4}, {"q", 1}});
    LL composed = inner.compose(outer);
    for (const auto &in : allInputs(inner)) {
      std::vector<int32_t> mid = inner.applyFlat(in);
      ASSERT_EQ(composed.applyFlat(in), outer.applyFlat({mid[1], mid[0]})) << "trial " << trial;
    }
  }
}

TEST(LinearLayout, InvertHandExample) {
  LL l({{"register", {{0, 1}, {1, 0}}}, {"lane", {{1, 2}}}}, {{"dim0", 2}, {"dim1", 4}});
  // dim1=2 is lane ^ register=2, since lane -> (1, 2) and register=2 -> (1, 0).
  LL expected({{"dim0", {{2, 0}}}, {"dim1", {{1, 0}, {2, 1}}}}, {{"register", 4}, {"lane", 2}});
  EXPECT_EQ(l.invert(), expected);
  EXPECT_EQ(l.invert().invert(), l);
}

TEST(LinearLayout, InvertOfRandomBijectionComposesToIdentity) {
  std::mt19937 rng(42);
  int tested = 0;
  while (tested < 60) {
    int bits = 1 + int(rng() % 12);
    LL l = randomLayout(rng, randomSplit(rng, bits, {"register", "lane", "warp"}),
                        randomSplit(rng, bits, {"dim0", "dim1"}));
    if (!l.isInjective()) continue; // random square matrices are invertible ~30% of the time
    ++tested;
    LL inv = l.invert();
    ASSERT_EQ(l.compose(inv), identityOnInputs(l)) << l;
    ASSERT_EQ(inv.compose(l), identityOnInputs(inv)) << l;
    ASSERT_EQ(inv.invert(), l);
  }
}

TEST(LinearLayout, InvertRejectsNonBijections) {
  EXPECT_NE(throwMessage([] { (void)LL::identity1D(4, "r", "d").sublayout({"r"}, {}).invert(); }).find("bijective"),
            std::string::npos);
  LL singular({{"r", {{1}, {1}}}}, {{"d", 4}});
  EXPECT_THROW((void)singular.invert(), std::invalid_argument);
  LL notSquare({{"r", {{1}}}}, {{"d", 4}});
  EXPECT_THROW((void)notSquare.invert(), std::invalid_argument);
}

TEST(LinearLayout, FreeVariableMasksHandExample) {
  // register bit 1 is zero, bit 3 = bit 0 ^ bit 2; lane bit 0 repeats register bit 0.
  LL l({{"register", {{1}, {0}, {2}, {3}}}, {"lane", {{1}, {4}}}}, {{"d", 8}});
  EXPECT_EQ(l.getFreeVariableMasks(), (LL::NamedValues{{"register", 0b1010}, {"lane", 0b01}}));
  EXPECT_EQ(l.getMatrixRank(), 3);
  EXPECT_TRUE(l.isSurjective());
  EXPECT_FALSE(l.isInjective());
}

TEST(LinearLayout, FreeVariablesCanBeClearedWithoutShrinkingTheImage) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    LL l = randomLayout(rng, {{"register", int(rng() % 4)}, {"lane", int(rng() % 4)}}, {{"dim0", 2}, {"dim1", 1}});
    LL::NamedValues masks = l.getFreeVariableMasks();
    std::set<std::vector<int32_t>> image, imageWithoutFree;
    int nonFree = 0;
    for (const auto &in : allInputs(l)) {
      image.insert(l.applyFlat(in));
      bool freeBitsZero = true;
      for (size_t i = 0; i < in.size(); ++i) freeBitsZero &= (in[i] & masks[i].second) == 0;
      if (freeBitsZero) {
        imageWithoutFree.insert(l.applyFlat(in));
        ++nonFree;
      }
    }
    ASSERT_EQ(image, imageWithoutFree) << l;
    // The remaining bits are independent: each output has exactly one such input.
    ASSERT_EQ(size_t(nonFree), imageWithoutFree.size()) << l;
    ASSERT_EQ(int64_t(1) << l.getMatrixRank(), int64_t(image.size())) << l;
  }
}

/// Checks that P is a right inverse of l choosing free variables zero.
void expectPseudoinverse(const LL &l) {
  LL p = l.pseudoinvert();
  LL::NamedValues masks = l.getFreeVariableMasks();
  for (const auto &y : allOutputs(l)) {
    std::vector<int32_t> x = p.applyFlat(y);
    ASSERT_EQ(l.applyFlat(x), y) << l;
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(x[i] & masks[i].second, 0) << l;
  }
}

TEST(LinearLayout, PseudoinversePicksFreeBitsZero) {
  LL l({{"register", {{1}, {0}, {2}, {3}}}, {"lane", {{1}, {4}}}}, {{"d", 8}});
  LL p = l.pseudoinvert();
  EXPECT_EQ(p, LL({{"d", {{1, 0}, {4, 0}, {0, 2}}}}, {{"register", 16}, {"lane", 4}}));
  expectPseudoinverse(l);

  std::mt19937 rng(99);
  int tested = 0;
  while (tested < 40) {
    LL r = randomLayout(rng, randomSplit(rng, 4 + int(rng() % 6), {"register", "lane", "warp"}),
                        randomSplit(rng, 1 + int(rng() % 4), {"dim0", "dim1"}));
    if (!r.isSurjective()) continue;
    ++tested;
    expectPseudoinverse(r);
  }
  EXPECT_NE(throwMessage([] { (void)LL({{"r", {{1}}}}, {{"d", 4}}).pseudoinvert(); }).find("surjective"),
            std::string::npos);
}

TEST(LinearLayout, InjectiveAndSurjective) {
  LL embed({{"r", {{1}, {2}}}}, {{"d", 8}});
  EXPECT_TRUE(embed.isInjective());
  EXPECT_FALSE(embed.isSurjective());
  EXPECT_TRUE(LL::zeros1D(4, "r", "d").isSurjective());
  EXPECT_FALSE(LL::zeros1D(4, "r", "d").isInjective());
}

TEST(LinearLayout, SublayoutKeepsNamedDimensions) {
  LL l({{"register", {{0, 1}, {1, 0}}}, {"lane", {{0, 2}, {2, 0}}}}, {{"dim0", 4}, {"dim1", 4}});
  EXPECT_EQ(l.sublayout({"lane"}, {"dim1"}), LL({{"lane", {{2}, {0}}}}, {{"dim1", 4}}));
  EXPECT_EQ(l.sublayout({"lane", "register"}, {"dim1", "dim0"}), l); // this layout's order is kept
  EXPECT_THROW((void)l.sublayout({"warp"}, {}), std::invalid_argument);
  EXPECT_THROW((void)l.sublayout({}, {"dim2"}), std::invalid_argument);
}

TEST(LinearLayout, TransposeOutsSwapsCoordinates) {
  std::mt19937 rng(5);
  LL l = randomLayout(rng, {{"register", 3}, {"lane", 2}}, {{"dim0", 2}, {"dim1", 3}});
  LL t = l.transposeOuts({"dim1", "dim0"});
  EXPECT_EQ(t.getOutDimNames(), (std::vector<std::string>{"dim1", "dim0"}));
  for (const auto &in : allInputs(l)) {
    std::vector<int32_t> a = l.applyFlat(in), b = t.applyFlat(in);
    ASSERT_EQ(a[0], b[1]);
    ASSERT_EQ(a[1], b[0]);
  }
  EXPECT_EQ(t.transposeOuts({"dim0", "dim1"}), l);
  EXPECT_THROW((void)l.transposeOuts({"dim0"}), std::invalid_argument);
  EXPECT_THROW((void)l.transposeOuts({"dim0", "dim0"}), std::invalid_argument);
  EXPECT_THROW((void)l.transposeOuts({"dim0", "dim2"}), std::invalid_argument);
}

TEST(LinearLayout, FlattenOutsIsRowMajor) {
  // register -> dim1 (fast), lane -> dim0 (slow): flattening gives lane * 4 + register.
  LL l = LL::identity1D(4, "register", "dim1") * LL::identity1D(2, "lane", "dim0");
  l = l.transposeOuts({"dim0", "dim1"});
  EXPECT_EQ(l.flattenOuts(), LL({{"register", {{1}, {2}}}, {"lane", {{4}}}}, {{"dim0", 8}}));

  std::mt19937 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    LL r = randomLayout(rng, {{"register", 4}, {"lane", 3}}, {{"dim0", 2}, {"dim1", 3}, {"dim2", 1}});
    LL flat = r.flattenOuts();
    LL reshaped = r.reshapeOuts({{"a", 8}, {"b", 8}});
    for (const auto &in : allInputs(r)) {
      std::vector<int32_t> c = r.applyFlat(in);
      int32_t linear = (c[0] * 8 + c[1]) * 2 + c[2];
      ASSERT_EQ(flat.applyFlat(in), std::vector<int32_t>{linear});
      ASSERT_EQ(reshaped.applyFlat(in), (std::vector<int32_t>{linear / 8, linear % 8}));
    }
    ASSERT_EQ(reshaped.reshapeOuts(r.getOutDims()), r);
  }
  EXPECT_THROW((void)l.reshapeOuts({{"dim0", 4}}), std::invalid_argument);
  EXPECT_THROW((void)l.reshapeOuts({{"dim0", 3}, {"dim1", 3}}), std::invalid_argument);
}

TEST(LinearLayout, ToStringListsEveryInputBit) {
  LL l({{"register", {{0, 1}, {1, 0}}}, {"lane", {}}}, {{"dim0", 2}, {"dim1", 2}});
  EXPECT_EQ(l.toString(), " - register=1 -> (0, 1)\n"
                          "   register=2 -> (1, 0)\n"
                          " - lane is a size 1 dimension\n"
                          "where out dims are: [dim0 (size 2), dim1 (size 2)]");
  std::ostringstream os;
  os << l;
  EXPECT_EQ(os.str(), l.toString());
}

TEST(LinearLayout, InvalidConstructionsThrow) {
  auto message = [](LL::BasesT bases, LL::NamedValues outs) {
    return throwMessage([&] { LL l(std::move(bases), std::move(outs)); });
  };
  EXPECT_NE(message({}, {{"d", 3}}).find("not a power of two"), std::string::npos);
  EXPECT_NE(message({}, {{"d", 0}}).find("not a power of two"), std::string::npos);
  EXPECT_NE(message({{"r", {{4}}}}, {{"d", 4}}).find("coordinate 4"), std::string::npos);
  EXPECT_NE(message({{"r", {{-1}}}}, {{"d", 4}}).find("coordinate -1"), std::string::npos);
  EXPECT_NE(message({{"r", {{1, 0}}}}, {{"d", 4}}).find("one per output dimension"), std::string::npos);
  EXPECT_NE(message({{"r", {}}, {"r", {}}}, {}).find("duplicate input"), std::string::npos);
  EXPECT_NE(message({}, {{"d", 2}, {"d", 2}}).find("duplicate output"), std::string::npos);
  EXPECT_THROW((void)LL::identity1D(3, "r", "d"), std::invalid_argument);
  EXPECT_THROW((void)LL::zeros1D(0, "r", "d"), std::invalid_argument);

  LL l = LL::identity1D(4, "r", "d");
  EXPECT_NE(throwMessage([&] { (void)l.apply({}); }).find("missing"), std::string::npos);
  EXPECT_THROW((void)l.apply({{"r", 4}}), std::invalid_argument);
  EXPECT_THROW((void)l.apply({{"x", 0}}), std::invalid_argument);
  EXPECT_THROW((void)l.apply({{"r", 0}, {"r", 1}}), std::invalid_argument);
  EXPECT_THROW((void)l.applyFlat({1, 2}), std::invalid_argument);
  EXPECT_THROW((void)l.getBasis("r", 2), std::invalid_argument);
  EXPECT_THROW((void)l.getInDimSize("lane"), std::invalid_argument);
  EXPECT_THROW((void)l.getOutDimSize("e"), std::invalid_argument);
  EXPECT_THROW((void)l.compose(LL::identity1D(4, "e", "f")), std::invalid_argument);
  EXPECT_THROW((void)l.compose(LL::identity1D(2, "d", "f")), std::invalid_argument); // outer input too small

  // Matrix operations pack all output bits into one 64-bit word.
  LL wide = LL::identity1D(1 << 30, "a", "x") * LL::identity1D(1 << 30, "b", "y") * LL::zeros1D(1 << 30, "c", "z");
  EXPECT_NE(throwMessage([&] { (void)wide.getMatrixRank(); }).find("at most 64 bits"), std::string::npos);
}

// --- Blocked and slice layouts -----------------------------------------------------------

struct BlockedParams {
  std::vector<unsigned> spt, tpw, wpc, order;
};

/// The blocked formula transcribed with per-dimension register, lane and warp indices
/// (what the lowering computed before it used linear layouts): the coordinate of
/// register r of thread (lane, warp) along each tensor dimension, and which copy of a
/// replicated element owns it. This is the definition the linear layouts must reproduce.
/// A slice has no registers along the sliced dimension, nor registers that would wrap
/// (sizePerThread beyond the extent): those held nothing another register does not.
class ThreadLayoutReference {
public:
  ThreadLayoutReference(const BlockedParams &p, std::vector<int64_t> tensorShape, int sliceDim)
      : p(p), shape(std::move(tensorShape)), sliceDim(sliceDim) {
    if (sliceDim >= 0) shape.insert(shape.begin() + sliceDim, 1);
    for (unsigned d = 0; d < p.spt.size(); ++d) {
      int64_t perThread = sliceDim >= 0 ? std::min<int64_t>(p.spt[d], shape[d]) : p.spt[d];
      nreg.push_back(perThread * std::max<int64_t>(1, shape[d] / tile(d)));
    }
  }

  int64_t tile(unsigned d) const { return int64_t(p.spt[d]) * p.tpw[d] * p.wpc[d]; }
  bool replicates(unsigned d) const { return tile(d) > shape[d]; }

  int64_t numRegs() const {
    int64_t n = 1;
    for (unsigned d = 0; d < nreg.size(); ++d)
      if (int(d) != sliceDim) n *= nreg[d];
    return n;
  }

  int64_t numWarps() const { return std::accumulate(p.wpc.begin(), p.wpc.end(), int64_t(1), std::multiplies<>()); }

  /// The coordinate of register r of thread (lane, warp) per tensor dimension.
  std::vector<int64_t> coords(int64_t r, int64_t lane, int64_t warp) const {
    Position pos = position(r, lane, warp);
    std::vector<int64_t> result;
    for (unsigned d = 0; d < p.spt.size(); ++d) {
      if (int(d) == sliceDim) continue;
      if (shape[d] == 1) {
        result.push_back(0);
        continue;
      }
      int64_t c = unwrappedCoord(pos, d);
      result.push_back(replicates(d) ? c % shape[d] : c);
    }
    return result;
  }

  /// Whether this is the first copy of a replicated element.
  bool isOwner(int64_t r, int64_t lane, int64_t warp) const {
    Position pos = position(r, lane, warp);
    bool owner = true;
    for (unsigned d = 0; d < p.spt.size(); ++d)
      if (int(d) != sliceDim && replicates(d)) owner &= unwrappedCoord(pos, d) < shape[d];
    if (sliceDim >= 0) owner &= pos.laneCoord[sliceDim] == 0 && pos.warpCoord[sliceDim] == 0;
    return owner;
  }

private:
  struct Position {
    std::vector<int64_t> regIdx, laneCoord, warpCoord;
  };

  /// Per-dimension indices: mixed radix over `order`, fastest first.
  Position position(int64_t r, int64_t lane, int64_t warp) const {
    size_t rank = p.spt.size();
    Position pos{std::vector<int64_t>(rank, 0), std::vector<int64_t>(rank), std::vector<int64_t>(rank)};
    for (unsigned d : p.order) {
      if (int(d) == sliceDim) continue;
      pos.regIdx[d] = r % nreg[d];
      r /= nreg[d];
    }
    int64_t laneStride = 1, warpStride = 1;
    for (unsigned d : p.order) {
      pos.laneCoord[d] = (lane / laneStride) % p.tpw[d];
      pos.warpCoord[d] = (warp / warpStride) % p.wpc[d];
      laneStride *= p.tpw[d];
      warpStride *= p.wpc[d];
    }
    return pos;
  }

  /// The coordinate before wrapping into the shape.
  int64_t unwrappedCoord(const Position &pos, unsigned d) const {
    int64_t rd = pos.regIdx[d];
    int64_t thread = pos.warpCoord[d] * p.tpw[d] + pos.laneCoord[d];
    return (rd / p.spt[d]) * tile(d) + thread * p.spt[d] + rd % p.spt[d];
  }

  BlockedParams p;
  std::vector<int64_t> shape, nreg;
  int sliceDim;
};

std::string describe(const BlockedParams &p, const std::vector<int64_t> &shape, int sliceDim) {
  auto list = [](const auto &v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s + "]";
  };
  std::string s = "spt=" + list(p.spt) + " tpw=" + list(p.tpw) + " wpc=" + list(p.wpc) + " order=" + list(p.order) +
                  " shape=" + list(shape);
  if (sliceDim >= 0) s += " slice dim " + std::to_string(sliceDim);
  return s;
}

/// Compares the linear layout with the reference for every (register, lane, warp), and
/// the inputs whose free variables are zero (what pseudoinvert returns) with the owners.
::testing::AssertionResult matchesThreadLayout(const BlockedParams &p, const std::vector<int64_t> &shape,
                                               int sliceDim) {
  LL l = sliceDim < 0 ? LL::blocked(p.spt, p.tpw, p.wpc, p.order, shape)
                      : LL::slice(unsigned(sliceDim), p.spt, p.tpw, p.wpc, p.order, shape);
  ThreadLayoutReference ref(p, shape, sliceDim);
  std::string what = describe(p, shape, sliceDim);
  if (l.getInDimNames() != std::vector<std::string>{"register", "lane", "warp"})
    return ::testing::AssertionFailure() << what << ": input dimensions " << l;
  if (l.getInDimSize("register") != ref.numRegs() || l.getInDimSize("lane") != 32 ||
      l.getInDimSize("warp") != ref.numWarps())
    return ::testing::AssertionFailure() << what << ": input sizes differ, numRegs " << ref.numRegs() << "\n" << l;
  LL::NamedValues expectedOuts;
  for (size_t d = 0; d < shape.size(); ++d) expectedOuts.emplace_back("dim" + std::to_string(d), int32_t(shape[d]));
  if (l.getOutDims() != expectedOuts) return ::testing::AssertionFailure() << what << ": output dimensions\n" << l;

  LL::NamedValues free = l.getFreeVariableMasks();
  for (int32_t r = 0; r < ref.numRegs(); ++r)
    for (int32_t lane = 0; lane < 32; ++lane)
      for (int32_t warp = 0; warp < ref.numWarps(); ++warp) {
        std::vector<int32_t> got = l.applyFlat({r, lane, warp});
        std::vector<int64_t> want = ref.coords(r, lane, warp);
        if (!std::equal(got.begin(), got.end(), want.begin(), want.end()))
          return ::testing::AssertionFailure()
                 << what << ": register " << r << " lane " << lane << " warp " << warp << " differs\n"
                 << l;
        bool canonical = !(r & free[0].second) && !(lane & free[1].second) && !(warp & free[2].second);
        if (canonical != ref.isOwner(r, lane, warp))
          return ::testing::AssertionFailure() << what << ": register " << r << " lane " << lane << " warp " << warp
                                               << (canonical ? " is not the owner" : " is the owner") << "\n"
                                               << l;
      }
  return ::testing::AssertionSuccess();
}

/// All ways to spread `bits` bits over `rank` dimensions, as powers of two.
std::vector<std::vector<unsigned>> powerSplits(int bits, size_t rank) {
  if (rank == 1) return {{1u << bits}};
  std::vector<std::vector<unsigned>> splits;
  for (int first = 0; first <= bits; ++first)
    for (auto rest : powerSplits(bits - first, rank - 1)) {
      rest.insert(rest.begin(), 1u << first);
      splits.push_back(rest);
    }
  return splits;
}

std::vector<std::vector<unsigned>> permutations(size_t rank) {
  std::vector<unsigned> order(rank);
  std::iota(order.begin(), order.end(), 0u);
  std::vector<std::vector<unsigned>> all;
  do all.push_back(order);
  while (std::next_permutation(order.begin(), order.end()));
  return all;
}

/// The blocked layout and every slice of it against the reference.
::testing::AssertionResult blockedAndSlicesMatch(const BlockedParams &p, const std::vector<int64_t> &shape) {
  if (auto r = matchesThreadLayout(p, shape, -1); !r) return r;
  for (size_t dim = 0; dim < shape.size(); ++dim) {
    std::vector<int64_t> sliced = shape;
    sliced.erase(sliced.begin() + dim);
    if (auto r = matchesThreadLayout(p, sliced, int(dim)); !r) return r;
  }
  return ::testing::AssertionSuccess();
}

TEST(BlockedLayout, HandComputedBases) {
  // Along dim1 (fastest): 4 registers, 8 lanes, then a repeat of the 32-wide tile.
  // Along dim0: 4 lanes, 2 warps, then a repeat of the 8-tall tile.
  LL l = LL::blocked({1, 4}, {4, 8}, {2, 1}, {1, 0}, {16, 64});
  LL expected({{"register", {{0, 1}, {0, 2}, {0, 32}, {8, 0}}},
               {"lane", {{0, 4}, {0, 8}, {0, 16}, {1, 0}, {2, 0}}},
               {"warp", {{4, 0}}}},
              {{"dim0", 16}, {"dim1", 64}});
  EXPECT_EQ(l, expected);
  EXPECT_TRUE(l.isInjective());
  EXPECT_TRUE(l.isSurjective());
}

TEST(BlockedLayout, SmallShapesReplicate) {
  // The same layout on 4x16: lane bit 2 would reach dim1=16 and the warp dim0=4, both wrap.
  LL l = LL::blocked({1, 4}, {4, 8}, {2, 1}, {1, 0}, {4, 16});
  LL expected({{"register", {{0, 1}, {0, 2}}}, {"lane", {{0, 4}, {0, 8}, {0, 0}, {1, 0}, {2, 0}}}, {"warp", {{0, 0}}}},
              {{"dim0", 4}, {"dim1", 16}});
  EXPECT_EQ(l, expected);
  EXPECT_EQ(l.getFreeVariableMasks(), (LL::NamedValues{{"register", 0}, {"lane", 0b00100}, {"warp", 1}}));
  // The owner of each element is the copy with lane bit 2 and the warp bit clear.
  expectPseudoinverse(l);
  EXPECT_EQ(l.pseudoinvert().apply({{"dim0", 3}, {"dim1", 13}}),
            (LL::NamedValues{{"register", 1}, {"lane", 3 | (3 << 3)}, {"warp", 0}}));
}

TEST(BlockedLayout, SliceDropsRegistersAndReplicatesThreads) {
  // Slicing dim0 of the layout above: dim0's lanes and warp hold replicas.
  LL l = LL::slice(0, {1, 4}, {4, 8}, {2, 1}, {1, 0}, {64});
  LL expected({{"register", {{1}, {2}, {32}}}, {"lane", {{4}, {8}, {16}, {0}, {0}}}, {"warp", {{0}}}}, {{"dim0", 64}});
  EXPECT_EQ(l, expected);
  // A register that would wrap (sizePerThread 4 on extent 2) holds nothing new: dropped.
  LL wrapped = LL::slice(0, {1, 4}, {4, 8}, {2, 1}, {1, 0}, {2});
  EXPECT_EQ(wrapped, LL({{"register", {{1}}}, {"lane", {{0}, {0}, {0}, {0}, {0}}}, {"warp", {{0}}}}, {{"dim0", 2}}));
  // Slicing a rank-1 layout leaves a scalar held by every thread.
  LL scalar = LL::slice(0, {4}, {32}, {2}, {0}, {});
  EXPECT_EQ(scalar.getNumOutDims(), 0);
  EXPECT_EQ(scalar.getInDimSize("register"), 1);
  EXPECT_EQ(scalar.getFreeVariableMasks(), (LL::NamedValues{{"register", 0}, {"lane", 31}, {"warp", 1}}));
}

TEST(BlockedLayout, InvertAndComposeFindsTheOtherLayoutsHolder) {
  LL a = LL::blocked({1, 4}, {4, 8}, {2, 1}, {1, 0}, {16, 64});
  LL b = LL::blocked({2, 1}, {16, 2}, {1, 2}, {0, 1}, {16, 64});
  LL aToB = a.invertAndCompose(b);
  EXPECT_EQ(aToB.getOutDimNames(), (std::vector<std::string>{"register", "lane", "warp"}));
  for (const auto &in : allInputs(a)) ASSERT_EQ(b.applyFlat(aToB.applyFlat(in)), a.applyFlat(in));
}

TEST(BlockedLayout, InvalidParametersThrow) {
  EXPECT_NE(throwMessage([] { (void)LL::blocked({1}, {16}, {1}, {0}, {32}); }).find("multiply to 32"),
            std::string::npos);
  EXPECT_THROW((void)LL::blocked({3}, {32}, {1}, {0}, {32}), std::invalid_argument);
  EXPECT_THROW((void)LL::blocked({1}, {32}, {3}, {0}, {32}), std::invalid_argument);
  EXPECT_THROW((void)LL::blocked({1, 1}, {4, 8}, {1, 1}, {0, 0}, {8, 8}), std::invalid_argument);
  EXPECT_THROW((void)LL::blocked({1, 1}, {4, 8}, {1, 1}, {1, 0}, {8}), std::invalid_argument);
  EXPECT_THROW((void)LL::blocked({1}, {32}, {1}, {0}, {48}), std::invalid_argument);
  EXPECT_THROW((void)LL::blocked({}, {}, {}, {}, {}), std::invalid_argument);
  EXPECT_THROW((void)LL::slice(2, {1, 1}, {4, 8}, {1, 1}, {1, 0}, {8}), std::invalid_argument);
  EXPECT_THROW((void)LL::slice(0, {1, 1}, {4, 8}, {1, 1}, {1, 0}, {8, 8}), std::invalid_argument);
}

TEST(BlockedLayout, Rank1Exhaustive) {
  for (unsigned spt : {1u, 2u, 4u, 8u, 16u})
    for (unsigned wpc : {1u, 2u, 4u, 8u})
      for (int64_t shapeBits = 0; shapeBits <= 9; ++shapeBits)
        ASSERT_TRUE(blockedAndSlicesMatch({{spt}, {32}, {wpc}, {0}}, {int64_t(1) << shapeBits}));
}

/// Random blocked layouts of `rank`, any spt (up to 8), tpw, wpc, order and shape (up
/// to 512 per dimension) possible. Cases whose brute force would exceed
/// 2^maxWorkBits (register, lane, warp) triples are redrawn to bound the run time.
/// Also checks that the draw covered tiles larger than the shape (replication), smaller
/// (repeated registers) and sizePerThread alone exceeding the shape.
void checkRandomBlocked(size_t rank, int cases, int maxWorkBits, uint32_t seed) {
  int replicated = 0, repeated = 0, sptBeyondShape = 0;
  std::mt19937 rng(seed);
  std::vector<std::vector<unsigned>> tpws = powerSplits(5, rank), orders = permutations(rank);
  std::vector<std::vector<std::vector<unsigned>>> wpcs;
  for (int warpBits = 0; warpBits <= 3; ++warpBits) wpcs.push_back(powerSplits(warpBits, rank));
  for (int c = 0; c < cases;) {
    BlockedParams p;
    for (size_t d = 0; d < rank; ++d) p.spt.push_back(1u << (rng() % 4));
    p.tpw = tpws[rng() % tpws.size()];
    const auto &wpcChoices = wpcs[rng() % wpcs.size()];
    p.wpc = wpcChoices[rng() % wpcChoices.size()];
    p.order = orders[rng() % orders.size()];
    std::vector<int64_t> shape;
    for (size_t d = 0; d < rank; ++d) shape.push_back(int64_t(1) << (rng() % 10));
    ThreadLayoutReference ref(p, shape, -1);
    if (ref.numRegs() * 32 * ref.numWarps() > (int64_t(1) << maxWorkBits)) continue;
    ++c;
    for (unsigned d = 0; d < rank; ++d) {
      int64_t tile = int64_t(p.spt[d]) * p.tpw[d] * p.wpc[d];
      replicated += tile > shape[d];
      repeated += tile < shape[d];
      sptBeyondShape += p.spt[d] > shape[d];
    }
    ASSERT_TRUE(blockedAndSlicesMatch(p, shape));
  }
  EXPECT_GT(replicated, cases / 10);
  EXPECT_GT(repeated, cases / 10);
  EXPECT_GT(sptBeyondShape, cases / 20);
}

TEST(BlockedLayout, Rank2Random) { checkRandomBlocked(2, 1500, 14, 2024); }

TEST(BlockedLayout, Rank3Random) { checkRandomBlocked(3, 800, 14, 3033); }

TEST(BlockedLayout, Rank2ExhaustiveThreadShapes) {
  // Every tpw, wpc and order on shapes below, at and above the tile.
  for (const auto &tpw : powerSplits(5, 2))
    for (int warpBits = 0; warpBits <= 3; ++warpBits)
      for (const auto &wpc : powerSplits(warpBits, 2))
        for (const auto &order : permutations(2))
          for (const auto &shape : std::vector<std::vector<int64_t>>{{1, 1}, {2, 64}, {16, 16}, {64, 4}, {128, 256}})
            ASSERT_TRUE(blockedAndSlicesMatch({{2, 1}, tpw, wpc, order}, shape));
}

} // namespace
