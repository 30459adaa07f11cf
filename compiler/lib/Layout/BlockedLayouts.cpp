//===- BlockedLayouts.cpp - #tile.blocked and #tile.slice as linear layouts ===//
// The distributed layouts built from a blocked encoding (sizePerThread, threadsPerWarp,
// warpsPerCTA, order), and the two derivations every distributed layout may need: the
// slice that drops a dimension, and wrapping a layout built for a larger tile.
#include "tile/Layout/LinearLayout.h"

#include "LayoutSupport.h"

using namespace tile::layout;
using namespace tile::layout::detail;

namespace {

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
