// How a convert_layout moves its data (tile/Analysis/LayoutConversion.h): the conversions
// attention needs (mma accumulator -> operand a, their row slices, a no-op under another
// attribute) stay in registers, a lane permutation is a warp shuffle, a transpose across
// warps goes through shared memory. Every register or shuffle plan is checked element by
// element: the source register (and lane) it names holds the element the destination
// register wants, for every register, lane and warp.
#include "tile/Analysis/LayoutConversion.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <sstream>

using namespace mlir;
using namespace mlir::tile;
using LL = ::tile::layout::LinearLayout;

namespace {

class LayoutConversionTest : public ::testing::Test {
protected:
  LayoutConversionTest() { ctx.loadDialect<TileDialect>(); }
  MLIRContext ctx;

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type elem, const std::string &layout) {
    Attribute enc = parseAttribute(layout, &ctx);
    EXPECT_TRUE(enc) << layout;
    return RankedTensorType::get(shape, elem, enc);
  }
  Type f16() { return Float16Type::get(&ctx); }
  Type f32() { return Float32Type::get(&ctx); }
};

int32_t inputBits(const LL &ll, const char *dim) { return ll.hasInDim(dim) ? ll.getInDimSizeLog2(dim) : 0; }

LL::NamedValues at(int32_t r, int32_t lane, int32_t warp) { return {{"register", r}, {"lane", lane}, {"warp", warp}}; }

/// The plan moves every element where it belongs: for every destination (register, lane,
/// warp), the source register (in the source lane of a shuffle, the same warp) it names
/// holds the destination's coordinate.
void expectPlanMovesEveryElement(const LL &src, const LL &dst, const LayoutConversionPlan &plan) {
  ASSERT_NE(plan.kind, LayoutConversionKind::SharedMemory);
  ASSERT_EQ(plan.srcRegister.size(), size_t(dst.getInDimSize("register")));
  for (int32_t w = 0; w < (1 << inputBits(dst, "warp")); ++w)
    for (int32_t l = 0; l < 32; ++l)
      for (int32_t r = 0; r < dst.getInDimSize("register"); ++r) {
        int32_t lane = l;
        if (plan.kind == LayoutConversionKind::WarpShuffle) {
          lane = plan.laneConst[r];
          for (size_t bit = 0; bit < plan.laneOfLaneBit.size(); ++bit)
            if (l >> bit & 1) lane ^= plan.laneOfLaneBit[bit];
          for (size_t bit = 0; bit < plan.laneOfWarpBit.size(); ++bit)
            if (w >> bit & 1) lane ^= plan.laneOfWarpBit[bit];
        }
        ASSERT_LT(plan.srcRegister[r], unsigned(src.getInDimSize("register")));
        ASSERT_EQ(src.apply(at(plan.srcRegister[r], lane, w)), dst.apply(at(r, l, w)))
            << "destination register " << r << " of lane " << l << " warp " << w << " read from register "
            << plan.srcRegister[r] << " of lane " << lane;
      }
}

/// The same layout as a #tile.linear attribute: its bases written out.
std::string asLinearAttr(const LL &ll) {
  std::ostringstream os;
  os << "#tile.linear<";
  const char *sep = "";
  for (const char *dim : {"register", "lane", "warp"}) {
    os << sep << dim << " = [";
    for (int32_t bit = 0; bit < inputBits(ll, dim); ++bit) {
      os << (bit ? ", [" : "[");
      const auto &basis = ll.getBasis(dim, bit);
      for (size_t d = 0; d < basis.size(); ++d) os << (d ? ", " : "") << basis[d];
      os << "]";
    }
    os << "]";
    sep = ", ";
  }
  os << ">";
  return os.str();
}

// The FlashAttention conversion on Hopper's mma.sync path: P = softmax(S) computed in the
// accumulator layout feeds P @ V as operand a. m16n8k16's a fragment is two neighbouring
// m16n8 accumulator fragments, so with warps along M every thread holds its elements.
TEST_F(LayoutConversionTest, MmaAccumulatorToOperandAStaysInRegisters) {
  for (unsigned warpsM : {1u, 2u, 4u, 8u})
    for (auto [m, n] : std::vector<std::pair<int64_t, int64_t>>{{64, 64}, {128, 64}, {128, 128}, {64, 16}, {128, 32}}) {
      if (m < 16 * warpsM) continue;
      SCOPED_TRACE("warpsM " + std::to_string(warpsM) + ", " + std::to_string(m) + "x" + std::to_string(n));
      std::string mma = "#tile.mma<warpsPerCTA = [" + std::to_string(warpsM) + ", 1]>";
      auto acc = tensor({m, n}, f16(), mma);
      auto a = tensor({m, n}, f16(), "#tile.dot_operand<opIdx = 0, parent = " + mma + ">");
      LayoutConversionPlan plan = planLayoutConversion(acc, a);
      EXPECT_EQ(plan.kind, LayoutConversionKind::Registers) << plan.reason;
      expectPlanMovesEveryElement(toLinearLayout(acc), toLinearLayout(a), plan);
      // And back (attention's O rescaled in the accumulator layout).
      LayoutConversionPlan back = planLayoutConversion(a, acc);
      EXPECT_EQ(back.kind, LayoutConversionKind::Registers) << back.reason;
      expectPlanMovesEveryElement(toLinearLayout(a), toLinearLayout(acc), back);
    }
}

TEST_F(LayoutConversionTest, RowSlicesOfAccumulatorAndOperandAStayInRegisters) {
  const std::string mma = "#tile.mma<warpsPerCTA = [4, 1]>";
  const std::string dot = "#tile.dot_operand<opIdx = 0, parent = " + mma + ">";
  for (int64_t m : {64, 128}) {
    auto rows = tensor({m}, f32(), "#tile.slice<dim = 1, parent = " + mma + ">");
    auto dotRows = tensor({m}, f32(), "#tile.slice<dim = 1, parent = " + dot + ">");
    for (auto [from, to] : {std::pair{rows, dotRows}, std::pair{dotRows, rows}, std::pair{rows, rows}}) {
      LayoutConversionPlan plan = planLayoutConversion(from, to);
      EXPECT_EQ(plan.kind, LayoutConversionKind::Registers) << plan.reason;
      expectPlanMovesEveryElement(toLinearLayout(from), toLinearLayout(to), plan);
    }
  }
}

// The same linear layout under another attribute is a no-op: register r reads register r.
TEST_F(LayoutConversionTest, SameLinearLayoutIsTheIdentity) {
  std::vector<std::pair<std::vector<int64_t>, std::string>> cases = {
      {{64, 64}, "#tile.mma<warpsPerCTA = [4, 1]>"},
      {{128, 64}, "#tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [4, 1]>>"},
      {{64, 32},
       "#tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>"},
      {{128}, "#tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [4, 1]>>"}};
  for (const auto &[shape, layout] : cases) {
    auto from = tensor(shape, f16(), layout);
    auto to = tensor(shape, f16(), asLinearAttr(toLinearLayout(from)));
    ASSERT_NE(from.getEncoding(), to.getEncoding());
    LayoutConversionPlan plan = planLayoutConversion(from, to);
    ASSERT_EQ(plan.kind, LayoutConversionKind::Registers) << layout << ": " << plan.reason;
    for (unsigned r = 0; r < plan.srcRegister.size(); ++r) EXPECT_EQ(plan.srcRegister[r], r) << layout;
  }
}

// Lanes bit-reversed within each warp: one shuffle per register, lane bit i read from the
// mirrored source lane bit, the same source register everywhere.
TEST_F(LayoutConversionTest, LanePermutationIsAWarpShuffle) {
  auto from =
      tensor({128}, f32(), "#tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>");
  auto to = tensor({128}, f32(), "#tile.linear<register = [], lane = [[16], [8], [4], [2], [1]], warp = [[32], [64]]>");
  LayoutConversionPlan plan = planLayoutConversion(from, to);
  ASSERT_EQ(plan.kind, LayoutConversionKind::WarpShuffle) << plan.reason;
  EXPECT_EQ(plan.laneOfLaneBit, (std::vector<int32_t>{16, 8, 4, 2, 1}));
  EXPECT_EQ(plan.laneOfWarpBit, (std::vector<int32_t>{0, 0}));
  EXPECT_FALSE(plan.isLocal(0));
  expectPlanMovesEveryElement(toLinearLayout(from), toLinearLayout(to), plan);
}

// Rows along lanes to columns along lanes with the warps moving from rows to columns: data
// crosses warps. Operand b from the accumulator: every warp needs all of K, which the
// accumulator splits over the warps. Both go through shared memory.
TEST_F(LayoutConversionTest, DataAcrossWarpsNeedsSharedMemory) {
  auto byRow =
      tensor({64, 64}, f32(),
             "#tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>");
  auto byCol =
      tensor({64, 64}, f32(),
             "#tile.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>");
  EXPECT_EQ(planLayoutConversion(byRow, byCol).kind, LayoutConversionKind::SharedMemory);
  const std::string mma = "#tile.mma<warpsPerCTA = [4, 1]>";
  auto acc = tensor({64, 64}, f16(), mma);
  auto b = tensor({64, 64}, f16(), "#tile.dot_operand<opIdx = 1, parent = " + mma + ">");
  LayoutConversionPlan plan = planLayoutConversion(acc, b);
  EXPECT_EQ(plan.kind, LayoutConversionKind::SharedMemory);
  EXPECT_FALSE(plan.reason.empty());
}

// Whether some holder of every destination element sits in the destination's own warp.
bool staysWithinWarps(const LL &src, const LL &dst) {
  for (int32_t w = 0; w < (1 << inputBits(dst, "warp")); ++w) {
    std::set<LL::NamedValues> held;
    for (int32_t l = 0; l < 32; ++l)
      for (int32_t r = 0; r < src.getInDimSize("register"); ++r) held.insert(src.apply(at(r, l, w)));
    for (int32_t l = 0; l < 32; ++l)
      for (int32_t r = 0; r < dst.getInDimSize("register"); ++r)
        if (!held.count(dst.apply(at(r, l, w)))) return false;
  }
  return true;
}

// Random pairs of 2-D blocked layouts on the same warps: every plan that avoids shared memory
// is right for every element, and one never avoids it where an element lives only in
// other warps. All three kinds occur.
TEST_F(LayoutConversionTest, RandomBlockedPairsArePlannedSoundly) {
  std::mt19937 rng(11);
  const std::vector<std::vector<unsigned>> tpw2 = {{32, 1}, {16, 2}, {8, 4}, {4, 8}, {2, 16}, {1, 32}};
  const std::vector<std::vector<unsigned>> wpc2 = {{4, 1}, {2, 2}, {1, 4}};
  auto randomBlocked = [&]() {
    const auto &tpw = tpw2[rng() % tpw2.size()];
    const auto &wpc = wpc2[rng() % wpc2.size()];
    std::ostringstream os;
    os << "#tile.blocked<sizePerThread = [" << (1 << rng() % 3) << ", " << (1 << rng() % 3) << "], threadsPerWarp = ["
       << tpw[0] << ", " << tpw[1] << "], warpsPerCTA = [" << wpc[0] << ", " << wpc[1]
       << "], order = " << (rng() % 2 ? "[1, 0]" : "[0, 1]") << ">";
    return os.str();
  };
  std::map<LayoutConversionKind, int> seen;
  for (int c = 0; c < 400; ++c) {
    std::vector<int64_t> shape = {int64_t(1) << (2 + rng() % 5), int64_t(1) << (2 + rng() % 5)};
    std::string a = randomBlocked(), b = randomBlocked();
    SCOPED_TRACE(a + " -> " + b + " on " + std::to_string(shape[0]) + "x" + std::to_string(shape[1]));
    auto from = tensor(shape, f32(), a), to = tensor(shape, f32(), b);
    LayoutConversionPlan plan = planLayoutConversion(from, to);
    ++seen[plan.kind];
    LL src = toLinearLayout(from), dst = toLinearLayout(to);
    if (plan.kind != LayoutConversionKind::SharedMemory) expectPlanMovesEveryElement(src, dst, plan);
    else if (plan.reason.find("another warp") == std::string::npos) continue;
    else EXPECT_FALSE(staysWithinWarps(src, dst)) << plan.reason;
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(seen[LayoutConversionKind::Registers], 0);
  EXPECT_GT(seen[LayoutConversionKind::WarpShuffle], 0);
  EXPECT_GT(seen[LayoutConversionKind::SharedMemory], 0);
}

} // namespace
