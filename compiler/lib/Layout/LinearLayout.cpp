//===- LinearLayout.cpp ---------------------------------------------------===//
#include "tile/Layout/LinearLayout.h"

#include <algorithm>
#include <array>
#include <bit>
#include <ostream>
#include <sstream>
#include <stdexcept>

using namespace tile::layout;

namespace {

using Basis = LinearLayout::Basis;
using NamedValues = LinearLayout::NamedValues;

// Output and input sizes are int32, so a dimension has at most 2^30 elements.
constexpr int32_t kMaxDimBits = 30;

[[noreturn]] void fail(const std::string &msg) { throw std::invalid_argument("LinearLayout: " + msg); }

bool isPowerOf2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int32_t log2Exact(int64_t v) {
  int32_t n = 0;
  while ((int64_t(1) << n) < v) ++n;
  return n;
}

std::string quoted(const std::string &s) { return "'" + s + "'"; }

bool contains(const std::vector<std::string> &names, const std::string &name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

template <typename Pairs> void requireUniqueNames(const Pairs &pairs, const char *what) {
  for (size_t i = 0; i < pairs.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (pairs[i].first == pairs[j].first)
        fail(std::string("duplicate ") + what + " dimension " + quoted(pairs[i].first));
}

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

/// Bit offset of each dimension when a vector of coordinates is packed into one word,
/// first dimension lowest. Only the matrix algorithms use this packing.
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

/// The same packing with the LAST dimension lowest: row-major linearization.
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

/// The layout's bit matrix, one packed output word per input bit (input dimensions in
/// order, low bits first): bit c of the flattened input selects column c.
std::vector<uint64_t> matrixColumns(const LinearLayout &l) {
  std::vector<int32_t> offsets = lowFirstOffsets(outLog2Sizes(l));
  (void)lowFirstOffsets(inLog2Sizes(l)); // only checks: Echelon tracks input columns in one word too
  std::vector<uint64_t> columns;
  for (const auto &[name, bases] : l.getBases())
    for (const Basis &b : bases) columns.push_back(pack(b, offsets));
  return columns;
}

/// An echelon form over GF(2) built one column at a time. Each row is kept under its
/// pivot (its highest set bit) together with the set of input columns XORing to it,
/// which is what inversion needs to express outputs in terms of inputs.
class Echelon {
public:
  /// Adds input column `column` with value `v`; false when v is in the span of the
  /// columns added before (a free variable).
  bool add(uint64_t v, int32_t column) {
    auto [rest, combo] = reduce(v, uint64_t(1) << column);
    if (!rest) return false;
    int32_t pivot = 63 - std::countl_zero(rest);
    value[pivot] = rest;
    combination[pivot] = combo;
    ++numRows;
    return true;
  }

  /// XORs rows into v until no pivot bit is left, tracking the input columns used.
  /// Descending pivots work because a row has no bits above its pivot.
  std::pair<uint64_t, uint64_t> reduce(uint64_t v, uint64_t combo) const {
    for (int32_t p = 63; p >= 0; --p) {
      if (((v >> p) & 1) && value[p]) {
        v ^= value[p];
        combo ^= combination[p];
      }
    }
    return {v, combo};
  }

  int32_t rank() const { return numRows; }

private:
  std::array<uint64_t, 64> value{}, combination{};
  int32_t numRows = 0;
};

Echelon echelonOf(const LinearLayout &l) {
  Echelon e;
  std::vector<uint64_t> columns = matrixColumns(l);
  for (size_t c = 0; c < columns.size(); ++c) e.add(columns[c], int32_t(c));
  return e;
}

// --- Blocked layouts ------------------------------------------------------------

struct BlockedParams {
  const std::vector<unsigned> &spt, &tpw, &wpc, &order;

  int64_t tile(unsigned d) const { return int64_t(spt[d]) * tpw[d] * wpc[d]; }
};

void validateBlocked(const BlockedParams &p) {
  size_t rank = p.spt.size();
  if (rank == 0 || p.tpw.size() != rank || p.wpc.size() != rank || p.order.size() != rank)
    fail("blocked layout needs equal, non-zero ranks for all fields");
  int64_t lanes = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (!isPowerOf2(p.spt[d]) || !isPowerOf2(p.tpw[d]) || !isPowerOf2(p.wpc[d]))
      fail("blocked layout sizes must be powers of two");
    lanes = std::min<int64_t>(lanes * p.tpw[d], 64); // enough to tell 32 apart, never overflows
  }
  if (lanes != 32) fail("threadsPerWarp must multiply to 32");
  std::vector<bool> seen(rank, false);
  for (unsigned o : p.order) {
    if (o >= rank || seen[o]) fail("order must be a permutation of the dimensions");
    seen[o] = true;
  }
}

void validateShape(const std::vector<int64_t> &shape) {
  for (int64_t s : shape)
    if (!isPowerOf2(s) || s > (int64_t(1) << kMaxDimBits))
      fail("tensor shape entries must be powers of two up to 2^30, got " + std::to_string(s));
}

/// The blocked formula read bit by bit: along dimension d, register r_d of thread
/// (lane_d, warp_d) sits at (r_d / spt) * tile + (warp_d * tpw + lane_d) * spt + r_d % spt,
/// mod shape[d]. Its terms occupy disjoint bits (r % spt below spt, the thread index
/// between spt and tile, r / spt above tile), so the sum is an XOR, and the final
/// `mod shape` only drops high bits: each input bit moves one coordinate by a power of
/// two, or by nothing once that reaches the shape.
LinearLayout buildBlocked(const BlockedParams &p, const std::vector<int64_t> &shape) {
  size_t rank = p.spt.size();
  auto step = [&](unsigned d, int64_t delta) {
    Basis b(rank, 0);
    b[d] = delta < shape[d] ? int32_t(delta) : 0;
    return b;
  };

  // Registers: mixed radix over `order`, each dimension's index split into r % spt (low
  // bits) and r / spt, the repeat of the whole tile (high bits).
  std::vector<Basis> regs, lanes, warps;
  for (unsigned d : p.order) {
    for (int32_t j = 0; j < log2Exact(p.spt[d]); ++j) regs.push_back(step(d, int64_t(1) << j));
    int64_t repeats = std::max<int64_t>(1, shape[d] / p.tile(d));
    for (int32_t j = 0; j < log2Exact(repeats); ++j) regs.push_back(step(d, p.tile(d) << j));
  }
  // Lane and warp ids are mixed radix over `order` too.
  for (unsigned d : p.order)
    for (int32_t j = 0; j < log2Exact(p.tpw[d]); ++j) lanes.push_back(step(d, int64_t(p.spt[d]) << j));
  for (unsigned d : p.order)
    for (int32_t j = 0; j < log2Exact(p.wpc[d]); ++j) warps.push_back(step(d, int64_t(p.spt[d]) * p.tpw[d] << j));

  NamedValues outDims;
  for (unsigned d = 0; d < rank; ++d) outDims.emplace_back("dim" + std::to_string(d), int32_t(shape[d]));
  return LinearLayout({{"register", regs}, {"lane", lanes}, {"warp", warps}}, outDims);
}

} // namespace

// --- Construction -----------------------------------------------------------------

LinearLayout::LinearLayout(BasesT bases, NamedValues outDims) : bases(std::move(bases)), outDims(std::move(outDims)) {
  requireUniqueNames(this->bases, "input");
  requireUniqueNames(this->outDims, "output");
  for (const auto &[name, size] : this->outDims)
    if (!isPowerOf2(size)) fail("output dimension " + quoted(name) + " has size " + std::to_string(size) +
                                ", not a power of two");
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

LinearLayout LinearLayout::blocked(const std::vector<unsigned> &sizePerThread,
                                   const std::vector<unsigned> &threadsPerWarp,
                                   const std::vector<unsigned> &warpsPerCTA, const std::vector<unsigned> &order,
                                   const std::vector<int64_t> &shape) {
  BlockedParams p{sizePerThread, threadsPerWarp, warpsPerCTA, order};
  validateBlocked(p);
  if (shape.size() != sizePerThread.size()) fail("blocked layout rank differs from the tensor's rank");
  validateShape(shape);
  return buildBlocked(p, shape);
}

LinearLayout LinearLayout::slice(unsigned dim, const std::vector<unsigned> &sizePerThread,
                                 const std::vector<unsigned> &threadsPerWarp, const std::vector<unsigned> &warpsPerCTA,
                                 const std::vector<unsigned> &order, const std::vector<int64_t> &shape) {
  BlockedParams p{sizePerThread, threadsPerWarp, warpsPerCTA, order};
  validateBlocked(p);
  if (dim >= sizePerThread.size()) fail("slice dimension " + std::to_string(dim) + " is out of the parent's rank");
  if (shape.size() + 1 != sizePerThread.size()) fail("a slice's tensor rank must be the parent's rank minus one");
  validateShape(shape);
  // The parent for the sliced tensor's shape with extent 1 along `dim`, that dim dropped.
  std::vector<int64_t> parentShape = shape;
  parentShape.insert(parentShape.begin() + dim, 1);
  return sliceLayout(buildBlocked(p, parentShape), dim);
}

LinearLayout tile::layout::sliceLayout(const LinearLayout &parent, unsigned dim) {
  const NamedValues &parentOuts = parent.getOutDims();
  if (dim >= parentOuts.size()) fail("slice dimension " + std::to_string(dim) + " is out of the parent's rank");
  NamedValues outDims;
  for (size_t d = 0; d < parentOuts.size(); ++d)
    if (d != dim) outDims.emplace_back("dim" + std::to_string(outDims.size()), parentOuts[d].second);
  LinearLayout::BasesT bases;
  for (const auto &[name, list] : parent.getBases()) {
    std::vector<Basis> kept;
    for (Basis b : list) {
      b.erase(b.begin() + dim);
      bool zero = std::all_of(b.begin(), b.end(), [](int32_t c) { return c == 0; });
      if (zero && name == "register") continue; // holds nothing another register does not
      kept.push_back(std::move(b));
    }
    bases.emplace_back(name, std::move(kept));
  }
  return LinearLayout(std::move(bases), std::move(outDims));
}

LinearLayout tile::layout::wrapOuts(const LinearLayout &layout, const std::vector<int32_t> &sizes) {
  const NamedValues &outs = layout.getOutDims();
  if (sizes.size() != outs.size()) fail("wrapOuts: one size per output dimension expected");
  NamedValues outDims;
  for (size_t d = 0; d < outs.size(); ++d) {
    if (!isPowerOf2(sizes[d]) || sizes[d] > outs[d].second)
      fail("wrapOuts: size " + std::to_string(sizes[d]) + " of " + quoted(outs[d].first) +
           " is not a power of two at most " + std::to_string(outs[d].second));
    outDims.emplace_back(outs[d].first, sizes[d]);
  }
  LinearLayout::BasesT bases;
  for (const auto &[name, list] : layout.getBases()) {
    std::vector<Basis> wrapped;
    for (Basis b : list) {
      for (size_t d = 0; d < b.size(); ++d) b[d] &= sizes[d] - 1;
      wrapped.push_back(std::move(b));
    }
    bases.emplace_back(name, std::move(wrapped));
  }
  return LinearLayout(std::move(bases), std::move(outDims));
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

std::ostream &tile::layout::operator<<(std::ostream &os, const LinearLayout &layout) {
  return os << layout.toString();
}
