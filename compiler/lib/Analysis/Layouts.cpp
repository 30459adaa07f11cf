//===- Layouts.cpp - choosing blocked layouts and vector widths -----------===//
#include "tile/Analysis/Layouts.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tile;

BlockedLayoutAttr mlir::tile::defaultBlockedLayout(MLIRContext *ctx, ArrayRef<int64_t> shape, unsigned numWarps,
                                                   unsigned vec, int fastest) {
  unsigned rank = shape.size();
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  unsigned threads = 32 * numWarps;
  unsigned last = fastest >= 0 ? unsigned(fastest) : rank - 1;
  // Fewer elements per thread than `vec` when the tensor is too small to give every
  // thread a full vector (Triton's rule), so small tensors are not replicated.
  unsigned perThread = std::max<int64_t>(1, std::min<int64_t>({vec, numel / threads, shape[last]}));
  SmallVector<unsigned> spt(rank, 1), tpw(rank, 1), wpc(rank, 1), order;
  spt[last] = perThread;
  order.push_back(last);
  for (int d = rank - 1; d >= 0; --d)
    if (unsigned(d) != last) order.push_back(d);

  // Lanes: fastest dimension first, as far as its extent allows; the rest on the slowest.
  unsigned lanesLeft = 32;
  for (unsigned k = 0; k < rank; ++k) {
    unsigned d = order[k];
    int64_t room = std::max<int64_t>(1, shape[d] / spt[d]);
    unsigned t = (k + 1 == rank) ? lanesLeft : std::min<int64_t>(lanesLeft, room);
    while (t & (t - 1)) --t; // power of two
    tpw[d] = t;
    lanesLeft /= t;
  }
  // Warps likewise.
  unsigned warpsLeft = numWarps;
  for (unsigned k = 0; k < rank; ++k) {
    unsigned d = order[k];
    int64_t room = std::max<int64_t>(1, shape[d] / (spt[d] * tpw[d]));
    unsigned w = (k + 1 == rank) ? warpsLeft : std::min<int64_t>(warpsLeft, room);
    while (w & (w - 1)) --w;
    wpc[d] = w;
    warpsLeft /= w;
  }
  return BlockedLayoutAttr::get(ctx, spt, tpw, wpc, order);
}

unsigned mlir::tile::memoryVectorWidth(AxisInfoAnalysis &axis, Value ptr, Value mask, unsigned perThread, int dim) {
  auto type = dyn_cast<RankedTensorType>(ptr.getType());
  if (!type) return 1;
  unsigned last = dim >= 0 ? unsigned(dim) : type.getRank() - 1;
  auto pointee = cast<PtrType>(type.getElementType()).getPointeeType();
  unsigned bytes = std::max<unsigned>(1, pointee.getIntOrFloatBitWidth() / 8);
  const AxisInfo &p = axis.get(ptr);
  int64_t vec = std::min<int64_t>(
      {perThread, p.contiguity[last], p.divisibility[last] / bytes, 16 / bytes, type.getDimSize(last)});
  if (mask) vec = std::min<int64_t>(vec, axis.get(mask).constancy[last]);
  return std::max<int64_t>(1, vec);
}

namespace {

/// The run of consecutive elements a thread owns: its dimension and length.
struct ThreadRun {
  int dim = -1; ///< -1: the last
  unsigned length = 1;
};

/// A blocked layout's: its fastest dimension's elements per thread. Any other distributed
/// layout's, from its linear layout: register bits 0..k-1 stepping 1, 2, .., 2^(k-1) along
/// one dimension, every other basis a multiple of 2^k there (so a group of 2^k registers
/// starts at a multiple of 2^k: aligned where the addresses are).
ThreadRun threadRunOf(RankedTensorType type) {
  Attribute layout = type.getEncoding();
  if (auto b = dyn_cast_or_null<BlockedLayoutAttr>(layout))
    return {int(b.getOrder()[0]), b.getSizePerThread()[b.getOrder()[0]]};
  if (!isa_and_nonnull<DistributedLayoutInterface>(layout)) return {};
  const ::tile::layout::LinearLayout ll = toLinearLayout(type);
  const int regBits = ll.hasInDim("register") ? ll.getInDimSizeLog2("register") : 0;
  if (regBits == 0) return {};
  const std::vector<int32_t> &first = ll.getBasis("register", 0);
  const int dim = int(std::find(first.begin(), first.end(), 1) - first.begin());
  if (dim == int(first.size())) return {};
  // Register bit k steps 2^k along `dim` and nothing else.
  auto steps = [&](int k) {
    const std::vector<int32_t> &basis = ll.getBasis("register", k);
    for (int d = 0; d < int(basis.size()); ++d)
      if (basis[d] != (d == dim ? 1 << k : 0)) return false;
    return true;
  };
  int k = 0;
  while (k < regBits && steps(k)) ++k;
  for (const auto &[inDim, bases] : ll.getBases())
    for (size_t bit = inDim == "register" ? size_t(k) : 0; bit < bases.size(); ++bit)
      while (k > 0 && bases[bit][dim] % (1 << k) != 0) --k;
  return {int(dim), 1u << k};
}

} // namespace

unsigned mlir::tile::accessVectorWidth(AxisInfoAnalysis &axis, Operation *access) {
  Value ptr, mask;
  if (auto l = dyn_cast<LoadOp>(access)) ptr = l.getPtr(), mask = l.getMask();
  else if (auto s = dyn_cast<StoreOp>(access)) ptr = s.getPtr(), mask = s.getMask();
  else return 1;
  auto type = dyn_cast<RankedTensorType>(ptr.getType());
  if (!type) return 1;
  const ThreadRun run = threadRunOf(type);
  return memoryVectorWidth(axis, ptr, mask, run.length, run.dim);
}

Attribute mlir::tile::layoutOf(Type t) {
  if (auto rt = dyn_cast<RankedTensorType>(t)) return rt.getEncoding();
  return {};
}
