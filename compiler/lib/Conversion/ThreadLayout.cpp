//===- ThreadLayout.cpp ---------------------------------------------------===//
#include "ThreadLayout.h"

#include "tile/Layout/MmaLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

ThreadLayout ThreadLayout::get(RankedTensorType type) {
  ThreadLayout l;
  // mma.sync fragments: only the linear layout (coordinates, register count) exists.
  if (auto mma = dyn_cast<MmaLayoutAttr>(type.getEncoding())) {
    l.shape.assign(type.getShape().begin(), type.getShape().end());
    l.linear = ::tile::layout::mmaV2Accumulator(mma.getWarpsPerCTA()[0], mma.getWarpsPerCTA()[1], l.shape[0], l.shape[1]);
    return l;
  }
  if (auto operand = dyn_cast<DotOperandLayoutAttr>(type.getEncoding())) {
    ArrayRef<unsigned> warps = operand.getParent().getWarpsPerCTA();
    l.shape.assign(type.getShape().begin(), type.getShape().end());
    l.linear = ::tile::layout::mmaV2Operand(operand.getOpIdx(), warps[0], warps[1], l.shape[0], l.shape[1]);
    return l;
  }
  BlockedLayoutAttr blocked;
  SmallVector<int64_t> shape(type.getShape());
  if (auto slice = dyn_cast<SliceLayoutAttr>(type.getEncoding())) {
    blocked = slice.getParent();
    l.sliceDim = slice.getDim();
    shape.insert(shape.begin() + l.sliceDim, 1);
  } else {
    blocked = cast<BlockedLayoutAttr>(type.getEncoding());
  }
  l.spt.assign(blocked.getSizePerThread().begin(), blocked.getSizePerThread().end());
  l.tpw.assign(blocked.getThreadsPerWarp().begin(), blocked.getThreadsPerWarp().end());
  l.wpc.assign(blocked.getWarpsPerCTA().begin(), blocked.getWarpsPerCTA().end());
  l.order.assign(blocked.getOrder().begin(), blocked.getOrder().end());
  l.shape = shape;
  for (unsigned d = 0; d < l.spt.size(); ++d)
    l.nreg.push_back(l.spt[d] * std::max<int64_t>(1, shape[d] / l.tile(d)));
  std::vector<unsigned> spt(l.spt.begin(), l.spt.end()), tpw(l.tpw.begin(), l.tpw.end()),
      wpc(l.wpc.begin(), l.wpc.end()), order(l.order.begin(), l.order.end());
  std::vector<int64_t> own(type.getShape().begin(), type.getShape().end());
  l.linear = l.sliceDim >= 0 ? ::tile::layout::LinearLayout::slice(l.sliceDim, spt, tpw, wpc, order, own)
                             : ::tile::layout::LinearLayout::blocked(spt, tpw, wpc, order, own);
  return l;
}

unsigned ThreadLayout::numRegs() const { return linear.getInDimSize("register"); }

SmallVector<unsigned> ThreadLayout::regIndex(unsigned r) const {
  SmallVector<unsigned> idx(nreg.size(), 0);
  for (unsigned d : order) {
    if (int(d) == sliceDim) continue;
    idx[d] = r % nreg[d];
    r /= nreg[d];
  }
  return idx;
}

unsigned ThreadLayout::regNumber(ArrayRef<unsigned> idx) const {
  unsigned r = 0, stride = 1;
  for (unsigned d : order) {
    if (int(d) == sliceDim) continue;
    r += (idx[d] % nreg[d]) * stride;
    stride *= nreg[d];
  }
  return r;
}

SmallVector<unsigned> ThreadLayout::tensorDims() const {
  SmallVector<unsigned> dims;
  for (unsigned d = 0; d < shape.size(); ++d)
    if (int(d) != sliceDim) dims.push_back(d);
  return dims;
}

Value IntBuilder::c(int64_t v) const { return arith::ConstantIntOp::create(b, loc, v, 32); }
Value IntBuilder::add(Value x, Value y) const { return arith::AddIOp::create(b, loc, x, y); }
Value IntBuilder::mul(Value x, Value y) const { return arith::MulIOp::create(b, loc, x, y); }
Value IntBuilder::udiv(Value x, int64_t d) const { return d == 1 ? x : arith::DivUIOp::create(b, loc, x, c(d)).getResult(); }
Value IntBuilder::urem(Value x, int64_t d) const { return arith::RemUIOp::create(b, loc, x, c(d)); }
Value IntBuilder::ult(Value x, int64_t bound) const {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, c(bound));
}
Value IntBuilder::eq(Value x, int64_t v) const {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, c(v));
}
Value IntBuilder::andi(Value x, Value y) const {
  if (!x) return y;
  if (!y) return x;
  return arith::AndIOp::create(b, loc, x, y);
}

ThreadPosition mlir::tile::emitThreadPosition(OpBuilder &b, Location loc, const ThreadLayout &layout) {
  IntBuilder ib{b, loc};
  ThreadPosition pos;
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  pos.lane = ib.urem(tid, 32);
  pos.warp = ib.udiv(tid, 32);
  unsigned rank = layout.parentRank();
  pos.laneCoord.resize(rank);
  pos.warpCoord.resize(rank);
  int64_t laneStride = 1, warpStride = 1;
  for (unsigned d : layout.order) {
    pos.laneCoord[d] = layout.tpw[d] == 1 ? ib.c(0) : ib.urem(ib.udiv(pos.lane, laneStride), layout.tpw[d]);
    pos.warpCoord[d] = layout.wpc[d] == 1 ? ib.c(0) : ib.urem(ib.udiv(pos.warp, warpStride), layout.wpc[d]);
    laneStride *= layout.tpw[d];
    warpStride *= layout.wpc[d];
  }
  for (int t = 0; t < layout.linear.getNumOutDims(); ++t)
    pos.threadPart.push_back(emitThreadPart(b, loc, layout.linear, pos.lane, pos.warp, t));
  return pos;
}

Value mlir::tile::emitThreadPart(OpBuilder &b, Location loc, const ::tile::layout::LinearLayout &ll, Value lane,
                                 Value warp, unsigned outDim, int32_t *usedBits) {
  IntBuilder ib{b, loc};
  Value part = ib.c(0);
  int32_t used = 0;
  for (auto [name, index] : {std::pair<const char *, Value>{"lane", lane}, {"warp", warp}}) {
    if (!ll.hasInDim(name)) continue;
    for (int bit = 0; bit < ll.getInDimSizeLog2(name); ++bit) {
      int32_t basis = ll.getBasis(name, bit)[outDim];
      if (basis == 0) continue;
      used |= basis;
      Value set = arith::AndIOp::create(b, loc, ib.udiv(index, int64_t(1) << bit), ib.c(1));
      part = arith::XOrIOp::create(b, loc, part, ib.mul(set, ib.c(basis)));
    }
  }
  if (usedBits) *usedBits = used;
  return part;
}

int32_t mlir::tile::registerPart(const ::tile::layout::LinearLayout &ll, unsigned r, unsigned outDim) {
  int32_t part = 0;
  for (int bit = 0; bit < ll.getInDimSizeLog2("register"); ++bit)
    if (r & (1u << bit)) part ^= ll.getBasis("register", bit)[outDim];
  return part;
}

Value mlir::tile::emitUnwrappedCoord(OpBuilder &b, Location loc, const ThreadLayout &l, const ThreadPosition &pos,
                                    unsigned r, unsigned d) {
  IntBuilder ib{b, loc};
  unsigned rd = l.regIndex(r)[d];
  // (warp * tpw + lane) * spt + fixed part
  Value thread = ib.add(ib.mul(pos.warpCoord[d], ib.c(l.tpw[d])), pos.laneCoord[d]);
  Value base = ib.mul(thread, ib.c(l.spt[d]));
  int64_t fixed = int64_t(rd / l.spt[d]) * l.tile(d) + rd % l.spt[d];
  return fixed ? ib.add(base, ib.c(fixed)) : base;
}

Value mlir::tile::emitCoord(OpBuilder &b, Location loc, const ThreadLayout &l, const ThreadPosition &pos,
                            unsigned r, unsigned d) {
  IntBuilder ib{b, loc};
  if (int(d) == l.sliceDim || l.shape[d] == 1) return ib.c(0);
  unsigned t = l.sliceDim >= 0 && int(d) > l.sliceDim ? d - 1 : d; // tensor dimension of parent dimension d
  int32_t own = registerPart(l.linear, r, t);
  return own ? Value(arith::XOrIOp::create(b, loc, pos.threadPart[t], ib.c(own))) : pos.threadPart[t];
}

Value mlir::tile::emitIsOwner(OpBuilder &b, Location loc, const ThreadLayout &l, const ThreadPosition &pos,
                              unsigned r) {
  IntBuilder ib{b, loc};
  Value owner;
  for (unsigned d : l.tensorDims())
    if (l.replicates(d)) owner = ib.andi(owner, ib.ult(emitUnwrappedCoord(b, loc, l, pos, r, d), l.shape[d]));
  // A slice is held by every thread along the removed dimension: the first one owns it.
  if (l.sliceDim >= 0) {
    unsigned d = l.sliceDim;
    if (l.tpw[d] > 1) owner = ib.andi(owner, ib.eq(pos.laneCoord[d], 0));
    if (l.wpc[d] > 1) owner = ib.andi(owner, ib.eq(pos.warpCoord[d], 0));
  }
  return owner;
}
