// The layout attributes behind DistributedLayoutInterface: each attribute's
// toLinearLayout against an independent formula — #tile.blocked against the documented
// sizePerThread/threadsPerWarp/warpsPerCTA/order mapping, evaluated per (register, lane,
// warp); #tile.slice against its parent with the sliced dimension dropped (for blocked,
// mma, dot-operand, linear and slice parents); #tile.mma and #tile.dot_operand against
// the mma.sync fragment layouts (themselves checked against the PTX tables in
// mma_layout_tests.cpp), wrapped into smaller shapes; #tile.linear against its own bases,
// and its text form.
#include "tile/Dialect/Tile.h"
#include "tile/Layout/MmaLayouts.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

using namespace mlir;
using namespace mlir::tile;
using LL = ::tile::layout::LinearLayout;

namespace {

class LayoutAttrTest : public ::testing::Test {
protected:
  LayoutAttrTest() { ctx.loadDialect<TileDialect>(); }
  MLIRContext ctx;

  DistributedLayoutInterface parse(const std::string &text) {
    Attribute a = parseAttribute(text, &ctx);
    return dyn_cast_or_null<DistributedLayoutInterface>(a);
  }
};

/// The documented blocked mapping, one dimension at a time: register r, lane and warp
/// split into per-dimension indices in mixed radix over `order` (fastest first; r_d
/// counts spt[d] * max(1, shape[d] / tile[d])), and along d
///   coord = ((r_d / spt) * tile + (warp_d * tpw + lane_d) * spt + r_d % spt) mod shape.
std::vector<int32_t> blockedCoord(ArrayRef<unsigned> spt, ArrayRef<unsigned> tpw, ArrayRef<unsigned> wpc,
                                  ArrayRef<unsigned> order, ArrayRef<int64_t> shape, int64_t r, int64_t lane,
                                  int64_t warp) {
  std::vector<int32_t> coord(shape.size());
  for (unsigned d : order) {
    int64_t tile = int64_t(spt[d]) * tpw[d] * wpc[d];
    int64_t nreg = spt[d] * std::max<int64_t>(1, shape[d] / tile);
    int64_t rd = r % nreg, ld = lane % tpw[d], wd = warp % wpc[d];
    r /= nreg, lane /= tpw[d], warp /= wpc[d];
    coord[d] = int32_t(((rd / spt[d]) * tile + (wd * tpw[d] + ld) * spt[d] + rd % spt[d]) % shape[d]);
  }
  return coord;
}

int64_t product(ArrayRef<unsigned> v) {
  int64_t p = 1;
  for (unsigned x : v) p *= x;
  return p;
}

TEST_F(LayoutAttrTest, BlockedMatchesTheDocumentedMapping) {
  std::mt19937 rng(7);
  const std::vector<std::vector<unsigned>> tpw2 = {{32, 1}, {16, 2}, {8, 4}, {4, 8}, {2, 16}, {1, 32}};
  const std::vector<std::vector<unsigned>> wpc2 = {{1, 1}, {2, 1}, {1, 2}, {2, 2}, {4, 1}, {1, 4}, {8, 1}, {2, 4}};
  for (int c = 0; c < 300; ++c) {
    SmallVector<unsigned> spt = {1u << (rng() % 4), 1u << (rng() % 4)};
    const auto &tpw = tpw2[rng() % tpw2.size()];
    const auto &wpc = wpc2[rng() % wpc2.size()];
    SmallVector<unsigned> order = rng() % 2 ? SmallVector<unsigned>{1, 0} : SmallVector<unsigned>{0, 1};
    SmallVector<int64_t> shape = {int64_t(1) << (rng() % 8), int64_t(1) << (rng() % 8)};
    auto attr = BlockedLayoutAttr::get(&ctx, spt, tpw, wpc, order);
    LL l = cast<DistributedLayoutInterface>(attr).toLinearLayout(shape, Float32Type::get(&ctx));
    ASSERT_EQ(l.getInDimSize("lane"), 32);
    ASSERT_EQ(l.getInDimSize("warp"), product(wpc));
    int64_t nreg = 1;
    for (unsigned d = 0; d < 2; ++d) {
      int64_t tile = int64_t(spt[d]) * tpw[d] * wpc[d];
      nreg *= spt[d] * std::max<int64_t>(1, shape[d] / tile);
    }
    ASSERT_EQ(l.getInDimSize("register"), nreg);
    for (int32_t r = 0; r < nreg; ++r)
      for (int32_t lane = 0; lane < 32; ++lane)
        for (int32_t warp = 0; warp < product(wpc); ++warp)
          ASSERT_EQ(l.applyFlat({r, lane, warp}), blockedCoord(spt, tpw, wpc, order, shape, r, lane, warp))
              << "blocked " << c << " register " << r << " lane " << lane << " warp " << warp;
  }
}

/// The slice's map is the parent's (for the shape with extent 1 inserted) with the
/// sliced coordinate dropped: the same lanes and warps (those that moved only along it
/// now replicate), and registers holding exactly the parent registers' remaining
/// coordinates, without the ones that held nothing new (no zero register basis).
void expectSliceOfParent(const LL &slice, const LL &parent, unsigned dim, bool parentRegistersIndependent) {
  ASSERT_EQ(slice.getNumOutDims() + 1, parent.getNumOutDims());
  for (int d = 0, s = 0; d < parent.getNumOutDims(); ++d) {
    if (d == int(dim)) continue;
    EXPECT_EQ(slice.getOutDims()[s].first, "dim" + std::to_string(s));
    EXPECT_EQ(slice.getOutDims()[s].second, parent.getOutDims()[d].second);
    ++s;
  }
  auto drop = [&](std::vector<int32_t> c) {
    c.erase(c.begin() + dim);
    return c;
  };
  for (const char *name : {"lane", "warp"}) {
    ASSERT_EQ(slice.getInDimSizeLog2(name), parent.getInDimSizeLog2(name)) << name;
    for (int b = 0; b < parent.getInDimSizeLog2(name); ++b)
      EXPECT_EQ(slice.getBasis(name, b), drop(parent.getBasis(name, b))) << name << " bit " << b;
  }
  std::set<std::vector<int32_t>> sliceRegs, parentRegs;
  for (int32_t r = 0; r < slice.getInDimSize("register"); ++r) sliceRegs.insert(slice.applyFlat({r, 0, 0}));
  for (int32_t r = 0; r < parent.getInDimSize("register"); ++r) parentRegs.insert(drop(parent.applyFlat({r, 0, 0})));
  EXPECT_EQ(sliceRegs, parentRegs);
  for (int b = 0; b < slice.getInDimSizeLog2("register"); ++b) {
    const auto &basis = slice.getBasis("register", b);
    EXPECT_TRUE(std::any_of(basis.begin(), basis.end(), [](int32_t c) { return c != 0; })) << "register bit " << b;
  }
  if (parentRegistersIndependent) EXPECT_EQ(int64_t(sliceRegs.size()), slice.getInDimSize("register"));
}

LL sliceAndParent(DistributedLayoutInterface parent, unsigned dim, ArrayRef<int64_t> shape, Type elem, LL &parentLL) {
  SmallVector<int64_t> parentShape(shape);
  parentShape.insert(parentShape.begin() + dim, 1);
  parentLL = parent.toLinearLayout(parentShape, elem);
  auto slice = SliceLayoutAttr::get(parent.getContext(), dim, parent);
  return cast<DistributedLayoutInterface>(slice).toLinearLayout(shape, elem);
}

TEST_F(LayoutAttrTest, SliceOfBlockedIsTheParentWithTheDimensionDropped) {
  std::mt19937 rng(11);
  const std::vector<std::vector<unsigned>> tpw3 = {{32, 1, 1}, {4, 8, 1}, {2, 4, 4}, {1, 1, 32}, {8, 1, 4}};
  const std::vector<std::vector<unsigned>> wpc3 = {{1, 1, 1}, {2, 1, 2}, {1, 4, 1}, {2, 2, 2}, {8, 1, 1}};
  for (int c = 0; c < 200; ++c) {
    SmallVector<unsigned> spt = {1u << (rng() % 3), 1u << (rng() % 3), 1u << (rng() % 3)};
    auto attr = BlockedLayoutAttr::get(&ctx, spt, tpw3[rng() % tpw3.size()], wpc3[rng() % wpc3.size()],
                                       rng() % 2 ? SmallVector<unsigned>{2, 1, 0} : SmallVector<unsigned>{0, 2, 1});
    unsigned dim = rng() % 3;
    SmallVector<int64_t> shape = {int64_t(1) << (rng() % 7), int64_t(1) << (rng() % 7)};
    LL parent;
    LL slice = sliceAndParent(attr, dim, shape, Float32Type::get(&ctx), parent);
    expectSliceOfParent(slice, parent, dim, /*parentRegistersIndependent=*/false);
    // Slicing that slice again (a rank-1 result) is the same rule applied twice.
    unsigned dim2 = rng() % 2;
    auto inner = SliceLayoutAttr::get(&ctx, dim, attr);
    SmallVector<int64_t> shape1 = {shape[1 - dim2]};
    LL innerLL;
    LL twice = sliceAndParent(inner, dim2, shape1, Float32Type::get(&ctx), innerLL);
    expectSliceOfParent(twice, innerLL, dim2, false);
  }
}

TEST_F(LayoutAttrTest, SliceOfMmaKeepsRowsOrColumns) {
  Type f32 = Float32Type::get(&ctx), f16 = Float16Type::get(&ctx);
  for (auto [wm, wn] : {std::pair{1u, 1u}, {2u, 2u}, {4u, 1u}, {1u, 4u}, {2u, 4u}})
    for (int64_t extent : {16, 64, 128}) {
      auto mma = MmaLayoutAttr::get(&ctx, {wm, wn});
      for (unsigned dim : {0u, 1u}) {
        LL parent;
        LL slice = sliceAndParent(mma, dim, {extent}, f32, parent);
        expectSliceOfParent(slice, parent, dim, /*parentRegistersIndependent=*/true);
      }
      // Operands too (a slice of a dot operand is a distributed layout like any other).
      for (unsigned opIdx : {0u, 1u}) {
        auto operand = DotOperandLayoutAttr::get(&ctx, opIdx, mma);
        LL parent;
        LL slice = sliceAndParent(operand, 0, {extent}, f16, parent);
        expectSliceOfParent(slice, parent, 0, true);
      }
    }
  // By hand: the rows of a 2-warp (along M) accumulator: lane l holds rows l/4 and
  // l/4 + 8 of its warp's 16; the four lanes of a row are copies.
  LL rows = cast<DistributedLayoutInterface>(SliceLayoutAttr::get(&ctx, 1, MmaLayoutAttr::get(&ctx, {2, 1})))
                .toLinearLayout({64}, Float32Type::get(&ctx));
  EXPECT_EQ(rows,
            LL({{"register", {{8}, {32}}}, {"lane", {{0}, {0}, {1}, {2}, {4}}}, {"warp", {{16}}}}, {{"dim0", 64}}));
}

/// A fragment layout built at the warps' coverage, its coordinates taken mod `shape`.
void expectWrapped(const LL &small, const LL &covered, ArrayRef<int64_t> shape) {
  ASSERT_EQ(small.getInDimSize("register"), covered.getInDimSize("register"));
  for (int32_t r = 0; r < covered.getInDimSize("register"); ++r)
    for (int32_t lane = 0; lane < 32; ++lane)
      for (int32_t warp = 0; warp < covered.getInDimSize("warp"); ++warp) {
        std::vector<int32_t> want = covered.applyFlat({r, lane, warp});
        for (size_t d = 0; d < want.size(); ++d) want[d] %= int32_t(shape[d]);
        ASSERT_EQ(small.applyFlat({r, lane, warp}), want) << r << " " << lane << " " << warp;
      }
}

TEST_F(LayoutAttrTest, MmaAndDotOperandAreTheFragmentLayouts) {
  Type f32 = Float32Type::get(&ctx), f16 = Float16Type::get(&ctx), bf16 = BFloat16Type::get(&ctx);
  for (auto [wm, wn] : {std::pair{1, 1}, {2, 2}, {4, 1}, {1, 4}, {2, 4}}) {
    auto mma = MmaLayoutAttr::get(&ctx, {unsigned(wm), unsigned(wn)});
    auto iface = cast<DistributedLayoutInterface>(mma);
    EXPECT_EQ(iface.getNumWarps(), unsigned(wm * wn));
    EXPECT_EQ(iface.toLinearLayout({128, 64}, f32), ::tile::layout::mmaV2Accumulator(wm, wn, 128, 64));
    // Shapes the warps do not cover wrap: the threads past the shape hold replicas.
    expectWrapped(iface.toLinearLayout({8, 2}, f32), ::tile::layout::mmaV2Accumulator(wm, wn, 16 * wm, 8 * wn), {8, 2});
    for (unsigned opIdx : {0u, 1u}) {
      auto operand = cast<DistributedLayoutInterface>(DotOperandLayoutAttr::get(&ctx, opIdx, mma));
      EXPECT_EQ(operand.getNumWarps(), unsigned(wm * wn));
      int64_t rows = opIdx == 0 ? 64 : 32, cols = opIdx == 0 ? 32 : 64;
      for (Type elem : {f16, bf16})
        EXPECT_EQ(operand.toLinearLayout({rows, cols}, elem),
                  ::tile::layout::mmaV2Operand(opIdx, wm, wn, rows, cols, 16));
      EXPECT_EQ(operand.toLinearLayout({rows, cols}, f32), ::tile::layout::mmaV2Operand(opIdx, wm, wn, rows, cols, 32));
    }
  }
}

TEST_F(LayoutAttrTest, LinearIsItsBasesAndPrintsBack) {
  const std::string text = "#tile.linear<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "
                           "warp = [[16, 0]]>";
  DistributedLayoutInterface layout = parse(text);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout.getRank(), 2u);
  EXPECT_EQ(layout.getNumWarps(), 2u);
  LL expected({{"register", {{0, 1}, {8, 0}}}, {"lane", {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}}, {"warp", {{16, 0}}}},
              {{"dim0", 32}, {"dim1", 8}});
  EXPECT_EQ(layout.toLinearLayout({32, 8}, Float32Type::get(&ctx)), expected);
  // The same map as the mma accumulator of that shape.
  EXPECT_EQ(expected, ::tile::layout::mmaV2Accumulator(2, 1, 32, 8));
  std::string printed;
  llvm::raw_string_ostream os(printed);
  Attribute(layout).print(os);
  EXPECT_EQ(printed, text);
  EXPECT_EQ(parse(printed), layout);
}

TEST_F(LayoutAttrTest, TensorTypesCheckTheyFitTheirLayout) {
  std::vector<std::string> errors;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    errors.push_back(d.str());
    return success();
  });
  auto emitError = [&] { return mlir::emitError(UnknownLoc::get(&ctx)); };
  Type f32 = Float32Type::get(&ctx);
  auto linear = parse("#tile.linear<register = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>");
  ASSERT_TRUE(linear);
  EXPECT_TRUE(RankedTensorType::getChecked(emitError, {8, 8}, f32, linear));
  EXPECT_FALSE(RankedTensorType::getChecked(emitError, {8, 4}, f32, linear))
      << "lane basis [0, 4] leaves an 8x4 tensor";
  EXPECT_FALSE(RankedTensorType::getChecked(emitError, {8, 16}, f32, linear)) << "half of 8x16 has no holder";
  EXPECT_FALSE(RankedTensorType::getChecked(emitError, {64}, f32, linear)) << "rank";
  auto blocked = BlockedLayoutAttr::get(&ctx, {1}, {32}, {4}, {0});
  EXPECT_TRUE(RankedTensorType::getChecked(emitError, {256}, f32, blocked));
  EXPECT_FALSE(RankedTensorType::getChecked(emitError, {96}, f32, blocked)) << "not a power of two";
  auto operand = DotOperandLayoutAttr::get(&ctx, 0, MmaLayoutAttr::get(&ctx, {1, 1}));
  EXPECT_FALSE(RankedTensorType::getChecked(emitError, {16, 16}, IntegerType::get(&ctx, 8), operand));
  ASSERT_EQ(errors.size(), 5u);
  EXPECT_NE(errors[0].find("outside the tensor's extent"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("every element needs a holder"), std::string::npos) << errors[1];
  EXPECT_NE(errors[2].find("rank 2"), std::string::npos) << errors[2];
}

} // namespace
