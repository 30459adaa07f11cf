//===- LinearLayoutAlgebra.cpp - product, composition, inversion, reshape --===//
// The operations that combine and restructure layouts. Inversion and rank work on the
// layout's bit matrix (BitMatrix.h).
#include "tile/Layout/LinearLayout.h"

#include "BitMatrix.h"
#include "LayoutSupport.h"

using namespace tile::layout;
using namespace tile::layout::detail;

namespace {
/// The order of a product's dimensions: every name of both lists, each list's order
/// kept. Names only one side has go first (lhs's before rhs's) until the next shared
/// name, so that e.g. {dim1} * {dim0, dim1} gives {dim0, dim1}.
std::vector<std::string> mergeOrders(const std::vector<std::string> &x, const std::vector<std::string> &y,
                                     const char *what) {
  std::vector<std::string> merged;
  size_t i = 0, j = 0;
  while (i < x.size() || j < y.size()) {
    if (i < x.size() && !contains(y, x[i])) {
      merged.push_back(x[i++]);
    } else if (j < y.size() && !contains(x, y[j])) {
      merged.push_back(y[j++]);
    } else {
      // Both point at shared names; consuming shared names in pairs keeps i and j in step.
      if (i >= x.size() || j >= y.size() || x[i] != y[j])
        fail(std::string("operator*: shared ") + what + " dimensions are in different orders");
      merged.push_back(x[i]);
      ++i, ++j;
    }
  }
  return merged;
}
} // namespace

// --- Algebra --------------------------------------------------------------------------

LinearLayout tile::layout::operator*(const LinearLayout &lhs, const LinearLayout &rhs) {
  std::vector<std::string> inNames = mergeOrders(lhs.getInDimNames(), rhs.getInDimNames(), "input");
  std::vector<std::string> outNames = mergeOrders(lhs.getOutDimNames(), rhs.getOutDimNames(), "output");

  auto sizeOr1 = [](const LinearLayout &l, const std::string &name) -> int64_t {
    return l.hasOutDim(name) ? l.getOutDimSize(name) : 1;
  };
  LinearLayout::NamedValues outDims;
  for (const std::string &name : outNames) {
    int64_t size = sizeOr1(lhs, name) * sizeOr1(rhs, name);
    if (size > (int64_t(1) << kMaxDimBits)) fail("operator*: output dimension " + quoted(name) + " exceeds 2^30");
    outDims.emplace_back(name, int32_t(size));
  }

  // Re-expresses an operand's basis over the product's output dimensions; rhs's
  // coordinates go above lhs's where both have the dimension.
  auto widen = [&](const LinearLayout &l, const Basis &b, bool isRhs) {
    Basis wide(outNames.size(), 0);
    for (size_t k = 0; k < outNames.size(); ++k) {
      int32_t src = l.outDimIndex(outNames[k]);
      if (src < 0) continue;
      int32_t shift = isRhs && lhs.hasOutDim(outNames[k]) ? lhs.getOutDimSizeLog2(outNames[k]) : 0;
      wide[k] = b[src] << shift;
    }
    return wide;
  };

  LinearLayout::BasesT bases;
  for (const std::string &name : inNames) {
    std::vector<Basis> list;
    // By side rather than by address: `l * l` must still shift its second copy.
    for (int side = 0; side < 2; ++side) {
      const LinearLayout &l = side == 0 ? lhs : rhs;
      if (int32_t i = l.inDimIndex(name); i >= 0)
        for (const Basis &b : l.bases[i].second) list.push_back(widen(l, b, side == 1));
    }
    bases.emplace_back(name, std::move(list));
  }
  return LinearLayout(std::move(bases), std::move(outDims));
}

LinearLayout LinearLayout::compose(const LinearLayout &outer) const {
  if (outer.getNumInDims() != getNumOutDims())
    fail("compose: the outer layout's input dimensions must be this layout's output dimensions");
  // Position in our output of each of outer's inputs, so a basis feeds outer.applyFlat.
  std::vector<int32_t> source;
  for (const auto &[name, list] : outer.bases) {
    int32_t k = outDimIndex(name);
    if (k < 0) fail("compose: the outer layout's input " + quoted(name) + " is not an output of this layout");
    if (outDims[k].second > (int64_t(1) << list.size()))
      fail("compose: output " + quoted(name) + " is larger than the outer layout's input");
    source.push_back(k);
  }
  BasesT composed;
  for (const auto &[name, list] : bases) {
    std::vector<Basis> mapped;
    for (const Basis &b : list) {
      std::vector<int32_t> ins;
      for (int32_t k : source) ins.push_back(b[k]);
      mapped.push_back(outer.applyFlat(ins));
    }
    composed.emplace_back(name, std::move(mapped));
  }
  return LinearLayout(std::move(composed), outer.outDims);
}

LinearLayout LinearLayout::pseudoinvert() const {
  Echelon echelon = echelonOf(*this);
  if (echelon.rank() != getTotalOutDimSizeLog2()) fail("pseudoinvert needs a surjective layout\n" + toString());
  std::vector<int32_t> inSizes = inLog2Sizes(*this);
  std::vector<int32_t> inOffsets = lowFirstOffsets(inSizes);

  BasesT inverse;
  int32_t outBit = 0; // matches matrixColumns' packing: output dimensions in order, low bits first
  for (const auto &[name, size] : outDims) {
    std::vector<Basis> list;
    for (int32_t j = 0; j < log2Exact(size); ++j, ++outBit) {
      // The rows span every output, so a unit vector reduces to zero and the columns
      // recorded on the way solve for it. Rows only ever record pivot columns, hence
      // free variables stay zero and the solution is unique, i.e. the map is linear.
      uint64_t columns = echelon.reduce(uint64_t(1) << outBit, 0).second;
      list.push_back(unpack(columns, inOffsets, inSizes));
    }
    inverse.emplace_back(name, std::move(list));
  }
  NamedValues inDimsAsOuts;
  for (const auto &[name, list] : bases) inDimsAsOuts.emplace_back(name, int32_t(1) << list.size());
  return LinearLayout(std::move(inverse), std::move(inDimsAsOuts));
}

LinearLayout LinearLayout::invert() const {
  if (getTotalInDimSizeLog2() != getTotalOutDimSizeLog2() || !isInjective())
    fail("invert needs a bijective layout\n" + toString());
  return pseudoinvert();
}

LinearLayout LinearLayout::invertAndCompose(const LinearLayout &other) const { return compose(other.pseudoinvert()); }

LinearLayout::NamedValues LinearLayout::getFreeVariableMasks() const {
  std::vector<uint64_t> columns = matrixColumns(*this);
  Echelon echelon;
  NamedValues masks;
  int32_t column = 0;
  for (const auto &[name, list] : bases) {
    int32_t mask = 0;
    for (size_t bit = 0; bit < list.size(); ++bit, ++column)
      if (!echelon.add(columns[column], column)) mask |= int32_t(1) << bit;
    masks.emplace_back(name, mask);
  }
  return masks;
}

int32_t LinearLayout::getMatrixRank() const { return echelonOf(*this).rank(); }

// --- Restructuring ----------------------------------------------------------------------

/// Every basis reduced to the output coordinates `outs` (in that order), keeping the
/// input dimensions named in `inDims` (all when null).
static LinearLayout::BasesT selectOuts(const LinearLayout::BasesT &bases, const std::vector<int32_t> &outs,
                                       const std::vector<std::string> *inDims) {
  LinearLayout::BasesT result;
  for (const auto &[name, list] : bases) {
    if (inDims && std::find(inDims->begin(), inDims->end(), name) == inDims->end()) continue;
    std::vector<LinearLayout::Basis> selected;
    for (const LinearLayout::Basis &b : list) {
      LinearLayout::Basis p;
      for (int32_t k : outs) p.push_back(b[k]);
      selected.push_back(std::move(p));
    }
    result.emplace_back(name, std::move(selected));
  }
  return result;
}

LinearLayout LinearLayout::sublayout(const std::vector<std::string> &inDimNames,
                                     const std::vector<std::string> &outDimNames) const {
  for (const std::string &name : inDimNames)
    if (!hasInDim(name)) fail("sublayout: no input dimension " + quoted(name));
  for (const std::string &name : outDimNames)
    if (!hasOutDim(name)) fail("sublayout: no output dimension " + quoted(name));

  std::vector<int32_t> kept;
  NamedValues keptOuts;
  for (size_t k = 0; k < outDims.size(); ++k)
    if (contains(outDimNames, outDims[k].first)) {
      kept.push_back(int32_t(k));
      keptOuts.push_back(outDims[k]);
    }
  return LinearLayout(selectOuts(bases, kept, &inDimNames), std::move(keptOuts));
}

LinearLayout LinearLayout::transposeOuts(const std::vector<std::string> &newOrder) const {
  if (newOrder.size() != outDims.size()) fail("transposeOuts needs a permutation of the output dimensions");
  std::vector<int32_t> source;
  NamedValues reordered;
  for (const std::string &name : newOrder) {
    int32_t k = outDimIndex(name);
    if (k < 0) fail("transposeOuts: no output dimension " + quoted(name));
    source.push_back(k);
    reordered.push_back(outDims[k]);
  }
  // The constructor rejects a repeated name, the one way a same-size list can fail.
  return LinearLayout(selectOuts(bases, source, nullptr), std::move(reordered));
}

LinearLayout LinearLayout::reshapeOuts(const NamedValues &newOutDims) const {
  std::vector<int32_t> newLog2;
  int32_t total = 0;
  for (const auto &[name, size] : newOutDims) {
    if (!isPowerOf2(size)) fail("reshapeOuts: size of " + quoted(name) + " is not a power of two");
    newLog2.push_back(log2Exact(size));
    total += newLog2.back();
  }
  if (total != getTotalOutDimSizeLog2()) fail("reshapeOuts must keep the total output size");
  std::vector<int32_t> oldOffsets = rowMajorOffsets(outLog2Sizes(*this));
  std::vector<int32_t> newOffsets = rowMajorOffsets(newLog2);
  BasesT reshaped;
  for (const auto &[name, list] : bases) {
    std::vector<Basis> mapped;
    for (const Basis &b : list) mapped.push_back(unpack(pack(b, oldOffsets), newOffsets, newLog2));
    reshaped.emplace_back(name, std::move(mapped));
  }
  return LinearLayout(std::move(reshaped), newOutDims);
}

LinearLayout LinearLayout::flattenOuts() const {
  if (outDims.empty()) return *this;
  int32_t bits = getTotalOutDimSizeLog2();
  if (bits > kMaxDimBits) fail("flattenOuts: more than 2^30 output elements");
  return reshapeOuts({{outDims.front().first, int32_t(1) << bits}});
}
