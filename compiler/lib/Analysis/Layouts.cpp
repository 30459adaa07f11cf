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

Attribute mlir::tile::layoutOf(Type t) {
  if (auto rt = dyn_cast<RankedTensorType>(t)) return rt.getEncoding();
  return {};
}
