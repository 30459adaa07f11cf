//===- LayoutConversion.cpp - how a convert_layout moves its data ---------===//
// Coordinates are read as one bit vector (the output dimensions' bits side by side), so
// "which source (register, lane) holds coordinate c" is a linear system over GF(2): the
// source's register and lane bases are reduced to pivots once (Gaussian elimination, in
// input order, so free variables such as replica registers are never picked), and every
// destination basis is solved against them.
#include "tile/Analysis/LayoutConversion.h"

#include "llvm/Support/Debug.h"

#include <bit>
#include <unordered_map>

#define DEBUG_TYPE "tile-layout-conversion"

using namespace mlir;
using namespace mlir::tile;
using ::tile::layout::LinearLayout;

namespace {

int32_t bitsOf(const LinearLayout &ll, const char *inDim) {
  return ll.hasInDim(inDim) ? ll.getInDimSizeLog2(inDim) : 0;
}

/// The output dimensions' bits concatenated (dim0 lowest), at most 64 of them.
struct Flattener {
  std::vector<int32_t> shift;
  bool fits = true;
  explicit Flattener(const LinearLayout &ll) {
    int32_t at = 0;
    for (const auto &[name, size] : ll.getOutDims()) {
      shift.push_back(at);
      at += std::countr_zero(uint32_t(size));
    }
    fits = at <= 64;
  }
  uint64_t operator()(const LinearLayout::Basis &basis) const {
    uint64_t v = 0;
    for (size_t d = 0; d < basis.size(); ++d) v |= uint64_t(uint32_t(basis[d])) << shift[d];
    return v;
  }
};

/// The span of a set of input bits' bases, each pivot remembering which input bits
/// (a mask over the numbering the caller chose) XOR to it.
class Span {
public:
  /// Adds input bit `index` with basis `v`; ignored when `v` is in the span already
  /// (the bit is a free variable: a replica of earlier bits).
  void add(uint64_t v, unsigned index) {
    uint64_t combo = uint64_t(1) << index;
    reduce(v, combo);
    if (v) pivots[63 - std::countl_zero(v)] = {v, combo};
  }
  /// The input bits whose bases XOR to `v`, or nullopt when `v` is outside the span.
  std::optional<uint64_t> solve(uint64_t v) const {
    uint64_t combo = 0;
    reduce(v, combo);
    if (v) return std::nullopt;
    return combo;
  }

private:
  void reduce(uint64_t &v, uint64_t &combo) const {
    while (v) {
      auto it = pivots.find(63 - std::countl_zero(v));
      if (it == pivots.end()) return;
      v ^= it->second.first;
      combo ^= it->second.second;
    }
  }
  std::unordered_map<int, std::pair<uint64_t, uint64_t>> pivots; ///< leading bit -> (vector, input bits)
};

/// Every thread holds what it needs in its own registers: the lanes and warps place every
/// coordinate alike, so a destination register matches the source register with the same
/// own part (the first such: replicas come later).
bool planRegisters(const LinearLayout &src, const LinearLayout &dst, const Flattener &flat,
                   LayoutConversionPlan &plan) {
  for (const char *name : {"lane", "warp"}) {
    if (bitsOf(src, name) != bitsOf(dst, name)) return false;
    for (int32_t bit = 0; bit < bitsOf(dst, name); ++bit)
      if (src.getBasis(name, bit) != dst.getBasis(name, bit)) return false;
  }
  auto registerKeys = [&](const LinearLayout &ll) {
    const int32_t n = bitsOf(ll, "register");
    std::vector<uint64_t> keys(size_t(1) << n, 0);
    for (size_t r = 1; r < keys.size(); ++r) {
      int32_t low = std::countr_zero(uint64_t(r));
      keys[r] = keys[r & (r - 1)] ^ flat(ll.getBasis("register", low));
    }
    return keys;
  };
  std::unordered_map<uint64_t, unsigned> firstWith;
  std::vector<uint64_t> srcKeys = registerKeys(src);
  for (unsigned r = 0; r < srcKeys.size(); ++r) firstWith.emplace(srcKeys[r], r);
  std::vector<unsigned> match;
  for (uint64_t key : registerKeys(dst)) {
    auto it = firstWith.find(key);
    if (it == firstWith.end()) return false;
    match.push_back(it->second);
  }
  plan.kind = LayoutConversionKind::Registers;
  plan.srcRegister = std::move(match);
  return true;
}

/// Solves every destination basis against the source's registers and lanes (the warp bits
/// must differ only by something a warp's own lanes and registers hold). The source
/// register must not depend on the lane or warp: one shfl.sync per destination register
/// reads the same register index from every lane.
bool planShuffle(const LinearLayout &src, const LinearLayout &dst, const Flattener &flat, LayoutConversionPlan &plan) {
  const int32_t regBits = bitsOf(src, "register"), laneBits = bitsOf(src, "lane"), warpBits = bitsOf(src, "warp");
  if (laneBits != bitsOf(dst, "lane") || warpBits != bitsOf(dst, "warp")) {
    plan.reason = "the layouts have different lane or warp counts";
    return false;
  }
  if (regBits + laneBits > 64) {
    plan.reason = "too many register bits to solve for";
    return false;
  }
  Span span;
  for (int32_t bit = 0; bit < regBits; ++bit) span.add(flat(src.getBasis("register", bit)), bit);
  for (int32_t bit = 0; bit < laneBits; ++bit) span.add(flat(src.getBasis("lane", bit)), regBits + bit);
  const uint64_t regMask = regBits == 64 ? ~uint64_t(0) : (uint64_t(1) << regBits) - 1;

  // A destination lane or warp bit: the source lane bits it adds, with no register part.
  auto laneOnly = [&](uint64_t v, const char *what, int32_t bit, int32_t &lane) {
    std::optional<uint64_t> combo = span.solve(v);
    if (!combo) {
      plan.reason = std::string(what) + " bit " + std::to_string(bit) + " reaches elements another warp holds";
      return false;
    }
    if (*combo & regMask) {
      plan.reason = std::string(what) + " bit " + std::to_string(bit) + " changes the source register by lane";
      return false;
    }
    lane = int32_t(*combo >> regBits);
    return true;
  };
  plan.laneOfLaneBit.assign(laneBits, 0);
  for (int32_t bit = 0; bit < laneBits; ++bit)
    if (!laneOnly(flat(dst.getBasis("lane", bit)), "lane", bit, plan.laneOfLaneBit[bit])) return false;
  plan.laneOfWarpBit.assign(warpBits, 0);
  for (int32_t bit = 0; bit < warpBits; ++bit)
    if (!laneOnly(flat(dst.getBasis("warp", bit)) ^ flat(src.getBasis("warp", bit)), "warp", bit,
                  plan.laneOfWarpBit[bit]))
      return false;

  const int32_t dstRegBits = bitsOf(dst, "register");
  std::vector<uint64_t> regCombo(dstRegBits);
  for (int32_t bit = 0; bit < dstRegBits; ++bit) {
    std::optional<uint64_t> combo = span.solve(flat(dst.getBasis("register", bit)));
    if (!combo) {
      plan.reason = "register bit " + std::to_string(bit) + " reaches elements another warp holds";
      return false;
    }
    regCombo[bit] = *combo;
  }
  const size_t dstRegs = size_t(1) << dstRegBits;
  std::vector<uint64_t> combo(dstRegs, 0);
  plan.srcRegister.assign(dstRegs, 0);
  plan.laneConst.assign(dstRegs, 0);
  for (size_t r = 1; r < dstRegs; ++r) {
    combo[r] = combo[r & (r - 1)] ^ regCombo[std::countr_zero(uint64_t(r))];
    plan.srcRegister[r] = unsigned(combo[r] & regMask);
    plan.laneConst[r] = int32_t(combo[r] >> regBits);
  }
  plan.kind = LayoutConversionKind::WarpShuffle;
  return true;
}

} // namespace

const char *mlir::tile::stringifyLayoutConversionKind(LayoutConversionKind kind) {
  switch (kind) {
  case LayoutConversionKind::Registers: return "registers";
  case LayoutConversionKind::WarpShuffle: return "warp shuffle";
  case LayoutConversionKind::SharedMemory: return "shared memory";
  }
  return "?";
}

bool LayoutConversionPlan::isLocal(unsigned r) const {
  if (kind == LayoutConversionKind::Registers) return true;
  if (kind != LayoutConversionKind::WarpShuffle || laneConst[r]) return false;
  for (size_t bit = 0; bit < laneOfLaneBit.size(); ++bit)
    if (laneOfLaneBit[bit] != int32_t(1) << bit) return false;
  for (int32_t lane : laneOfWarpBit)
    if (lane) return false;
  return true;
}

LayoutConversionPlan mlir::tile::planLayoutConversion(const LinearLayout &src, const LinearLayout &dst) {
  LayoutConversionPlan plan;
  if (src.getOutDims() != dst.getOutDims()) {
    plan.reason = "the layouts cover different shapes";
    return plan;
  }
  Flattener flat(src);
  if (!flat.fits) {
    plan.reason = "more than 64 coordinate bits";
    return plan;
  }
  if (planRegisters(src, dst, flat, plan)) return plan;
  if (planShuffle(src, dst, flat, plan)) {
    // A lane map that is the identity with no lane-dependent part is a register pick after all
    // (the lanes differ only in bases the solver reduced the same way).
    bool local = true;
    for (unsigned r = 0; r < plan.srcRegister.size() && local; ++r) local = plan.isLocal(r);
    if (local) {
      plan.kind = LayoutConversionKind::Registers;
      plan.laneConst.clear();
      plan.laneOfLaneBit.clear();
      plan.laneOfWarpBit.clear();
    }
    return plan;
  }
  plan.kind = LayoutConversionKind::SharedMemory;
  plan.srcRegister.clear();
  plan.laneConst.clear();
  return plan;
}

LayoutConversionPlan mlir::tile::planLayoutConversion(RankedTensorType src, RankedTensorType dst) {
  LayoutConversionPlan plan;
  if (src.getShape() != dst.getShape()) {
    plan.reason = "the shapes differ";
    return plan;
  }
  if (!isa_and_present<DistributedLayoutInterface>(src.getEncoding()) ||
      !isa_and_present<DistributedLayoutInterface>(dst.getEncoding())) {
    plan.reason = "a tensor without a distributed layout";
    return plan;
  }
  plan = planLayoutConversion(toLinearLayout(src), toLinearLayout(dst));
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << src << " -> " << dst << ": "
                          << stringifyLayoutConversionKind(plan.kind)
                          << (plan.reason.empty() ? "" : " (" + plan.reason + ")") << "\n");
  return plan;
}

LayoutConversionKind mlir::tile::classifyLayoutConversion(ConvertLayoutOp op) {
  return planLayoutConversion(cast<RankedTensorType>(op.getSrc().getType()), cast<RankedTensorType>(op.getType())).kind;
}
