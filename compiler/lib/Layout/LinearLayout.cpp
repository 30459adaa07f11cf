//===- LinearLayout.cpp - construction, queries, evaluation and printing --===//
// The layout as data: the constructor's checks, the 1-D building blocks, dimension
// queries, applying a layout to an input, and its text form. The algebra is in
// LinearLayoutAlgebra.cpp, the blocked and slice layouts in BlockedLayouts.cpp.
#include "tile/Layout/LinearLayout.h"

#include "LayoutSupport.h"

#include <ostream>
#include <sstream>

using namespace tile::layout;
using namespace tile::layout::detail;

namespace {
template <typename Pairs> void requireUniqueNames(const Pairs &pairs, const char *what) {
  for (size_t i = 0; i < pairs.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (pairs[i].first == pairs[j].first)
        fail(std::string("duplicate ") + what + " dimension " + quoted(pairs[i].first));
}
} // namespace

// --- Construction -----------------------------------------------------------------

LinearLayout::LinearLayout(BasesT bases, NamedValues outDims) : bases(std::move(bases)), outDims(std::move(outDims)) {
  requireUniqueNames(this->bases, "input");
  requireUniqueNames(this->outDims, "output");
  for (const auto &[name, size] : this->outDims)
    if (!isPowerOf2(size))
      fail("output dimension " + quoted(name) + " has size " + std::to_string(size) + ", not a power of two");
  for (const auto &[name, list] : this->bases) {
    if (list.size() > size_t(kMaxDimBits))
      fail("input dimension " + quoted(name) + " has " + std::to_string(list.size()) + " bases, at most 30 allowed");
    for (size_t i = 0; i < list.size(); ++i) {
      const Basis &b = list[i];
      std::string where = "basis " + std::to_string(i) + " of input dimension " + quoted(name);
      if (b.size() != this->outDims.size())
        fail(where + " has " + std::to_string(b.size()) + " entries, expected one per output dimension (" +
             std::to_string(this->outDims.size()) + ")");
      for (size_t k = 0; k < b.size(); ++k)
        if (b[k] < 0 || b[k] >= this->outDims[k].second)
          fail(where + " has coordinate " + std::to_string(b[k]) + " for output dimension " +
               quoted(this->outDims[k].first) + " of size " + std::to_string(this->outDims[k].second));
    }
  }
}

LinearLayout LinearLayout::identity1D(int32_t size, std::string inDim, std::string outDim) {
  if (!isPowerOf2(size)) fail("identity1D size must be a power of two, got " + std::to_string(size));
  std::vector<Basis> list;
  for (int32_t v = 1; v < size; v <<= 1) list.push_back({v});
  return LinearLayout({{std::move(inDim), list}}, {{std::move(outDim), size}});
}

LinearLayout LinearLayout::zeros1D(int32_t size, std::string inDim, std::string outDim) {
  if (!isPowerOf2(size)) fail("zeros1D size must be a power of two, got " + std::to_string(size));
  std::vector<Basis> list(log2Exact(size), Basis{0});
  return LinearLayout({{std::move(inDim), list}}, {{std::move(outDim), 1}});
}

// --- Queries ------------------------------------------------------------------------

int32_t LinearLayout::inDimIndex(const std::string &name) const {
  for (size_t i = 0; i < bases.size(); ++i)
    if (bases[i].first == name) return int32_t(i);
  return -1;
}

int32_t LinearLayout::outDimIndex(const std::string &name) const {
  for (size_t i = 0; i < outDims.size(); ++i)
    if (outDims[i].first == name) return int32_t(i);
  return -1;
}

const std::vector<LinearLayout::Basis> &LinearLayout::basesOf(const std::string &inDim) const {
  int32_t i = inDimIndex(inDim);
  if (i < 0) fail("no input dimension " + quoted(inDim));
  return bases[i].second;
}

int32_t LinearLayout::requireOutDim(const std::string &name) const {
  int32_t k = outDimIndex(name);
  if (k < 0) fail("no output dimension " + quoted(name));
  return k;
}

std::vector<std::string> LinearLayout::getInDimNames() const {
  std::vector<std::string> names;
  for (const auto &[name, list] : bases) names.push_back(name);
  return names;
}

std::vector<std::string> LinearLayout::getOutDimNames() const {
  std::vector<std::string> names;
  for (const auto &[name, size] : outDims) names.push_back(name);
  return names;
}

int32_t LinearLayout::getInDimSizeLog2(const std::string &name) const { return int32_t(basesOf(name).size()); }

int32_t LinearLayout::getOutDimSize(const std::string &name) const { return outDims[requireOutDim(name)].second; }

int32_t LinearLayout::getOutDimSizeLog2(const std::string &name) const { return log2Exact(getOutDimSize(name)); }

int32_t LinearLayout::getTotalInDimSizeLog2() const {
  int32_t n = 0;
  for (const auto &[name, list] : bases) n += int32_t(list.size());
  return n;
}

int32_t LinearLayout::getTotalOutDimSizeLog2() const {
  int32_t n = 0;
  for (const auto &[name, size] : outDims) n += log2Exact(size);
  return n;
}

const LinearLayout::Basis &LinearLayout::getBasis(const std::string &inDim, int32_t bit) const {
  const std::vector<Basis> &list = basesOf(inDim);
  if (bit < 0 || size_t(bit) >= list.size())
    fail("input dimension " + quoted(inDim) + " has no bit " + std::to_string(bit));
  return list[bit];
}

int32_t LinearLayout::getBasis(const std::string &inDim, int32_t bit, const std::string &outDim) const {
  return getBasis(inDim, bit)[requireOutDim(outDim)];
}

// --- Evaluation ---------------------------------------------------------------------

std::vector<int32_t> LinearLayout::applyFlat(const std::vector<int32_t> &ins) const {
  if (ins.size() != bases.size())
    fail("apply needs " + std::to_string(bases.size()) + " inputs, got " + std::to_string(ins.size()));
  std::vector<int32_t> out(outDims.size(), 0);
  for (size_t i = 0; i < bases.size(); ++i) {
    const std::vector<Basis> &list = bases[i].second;
    if (ins[i] < 0 || int64_t(ins[i]) >= (int64_t(1) << list.size()))
      fail("input " + std::to_string(ins[i]) + " is out of range for dimension " + quoted(bases[i].first));
    for (size_t bit = 0; bit < list.size(); ++bit)
      if ((ins[i] >> bit) & 1)
        for (size_t k = 0; k < out.size(); ++k) out[k] ^= list[bit][k];
  }
  return out;
}

NamedValues LinearLayout::apply(const NamedValues &ins) const {
  std::vector<int32_t> flat(bases.size(), 0);
  std::vector<bool> given(bases.size(), false);
  for (const auto &[name, value] : ins) {
    int32_t i = inDimIndex(name);
    if (i < 0) fail("apply: no input dimension " + quoted(name));
    if (given[i]) fail("apply: input dimension " + quoted(name) + " given twice");
    given[i] = true;
    flat[i] = value;
  }
  for (size_t i = 0; i < bases.size(); ++i)
    if (!given[i]) fail("apply: missing input dimension " + quoted(bases[i].first));
  std::vector<int32_t> out = applyFlat(flat);
  NamedValues named;
  for (size_t k = 0; k < outDims.size(); ++k) named.emplace_back(outDims[k].first, out[k]);
  return named;
}

// --- Printing -------------------------------------------------------------------------

std::string LinearLayout::toString() const {
  std::ostringstream os;
  for (const auto &[name, list] : bases) {
    if (list.empty()) os << " - " << name << " is a size 1 dimension\n";
    for (size_t bit = 0; bit < list.size(); ++bit) {
      os << (bit == 0 ? " - " : "   ") << name << "=" << (int64_t(1) << bit) << " -> (";
      for (size_t k = 0; k < list[bit].size(); ++k) os << (k ? ", " : "") << list[bit][k];
      os << ")\n";
    }
  }
  os << "where out dims are: [";
  for (size_t k = 0; k < outDims.size(); ++k)
    os << (k ? ", " : "") << outDims[k].first << " (size " << outDims[k].second << ")";
  os << "]";
  return os.str();
}

std::ostream &tile::layout::operator<<(std::ostream &os, const LinearLayout &layout) { return os << layout.toString(); }
