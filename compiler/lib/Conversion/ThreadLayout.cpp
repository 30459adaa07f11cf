//===- ThreadLayout.cpp ---------------------------------------------------===//
#include "ThreadLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;

ThreadLayout ThreadLayout::get(RankedTensorType type) {
  ThreadLayout l;
  l.shape.assign(type.getShape().begin(), type.getShape().end());
  l.linear = toLinearLayout(type);
  for (const auto &[name, mask] : l.linear.getFreeVariableMasks()) {
    if (name == "register") l.freeRegisterBits = mask;
    else if (name == "lane") l.freeLaneBits = mask;
    else if (name == "warp") l.freeWarpBits = mask;
  }
  return l;
}

unsigned ThreadLayout::numRegs() const { return linear.getInDimSize("register"); }

unsigned ThreadLayout::regsOf(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt ? get(rt).numRegs() : 1;
}

int32_t ThreadLayout::regCoord(unsigned r, unsigned d) const { return registerPart(linear, r, d); }

Value IntBuilder::c(int64_t v) const { return arith::ConstantIntOp::create(b, loc, v, 32); }
Value IntBuilder::add(Value x, Value y) const { return arith::AddIOp::create(b, loc, x, y); }
Value IntBuilder::mul(Value x, Value y) const { return arith::MulIOp::create(b, loc, x, y); }
Value IntBuilder::udiv(Value x, int64_t d) const {
  return d == 1 ? x : arith::DivUIOp::create(b, loc, x, c(d)).getResult();
}
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
  for (int t = 0; t < layout.linear.getNumOutDims(); ++t)
    pos.threadPart.push_back(emitThreadPart(b, loc, layout.linear, pos.lane, pos.warp, t));
  return pos;
}

Value mlir::tile::warpUniform(OpBuilder &b, Location loc, Value value) {
  IntBuilder ib{b, loc};
  return NVVM::ShflOp::create(b, loc, b.getI32Type(), ib.c(-1), value, ib.c(0), ib.c(0x1f), NVVM::ShflKind::idx,
                              UnitAttr());
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

Value mlir::tile::emitCoord(OpBuilder &b, Location loc, const ThreadLayout &l, const ThreadPosition &pos, unsigned r,
                            unsigned d) {
  IntBuilder ib{b, loc};
  if (l.shape[d] == 1) return ib.c(0);
  int32_t own = l.regCoord(r, d);
  return own ? Value(arith::XOrIOp::create(b, loc, pos.threadPart[d], ib.c(own))) : pos.threadPart[d];
}

Value mlir::tile::emitIsOwner(OpBuilder &b, Location loc, const ThreadLayout &l, const ThreadPosition &pos,
                              unsigned r) {
  if (l.isRegisterReplica(r)) return arith::ConstantIntOp::create(b, loc, 0, 1);
  return emitIsOwnerThread(b, loc, l, pos);
}

Value mlir::tile::emitIsOwnerThread(OpBuilder &b, Location loc, const ThreadLayout &l, const ThreadPosition &pos) {
  IntBuilder ib{b, loc};
  Value owner;
  if (l.freeLaneBits) owner = ib.eq(arith::AndIOp::create(b, loc, pos.lane, ib.c(l.freeLaneBits)), 0);
  if (l.freeWarpBits) owner = ib.andi(owner, ib.eq(arith::AndIOp::create(b, loc, pos.warp, ib.c(l.freeWarpBits)), 0));
  return owner;
}

void mlir::tile::enterOwnerThreads(OpBuilder &b, Location loc, const ThreadLayout &l, const ThreadPosition &pos) {
  if (Value owner = emitIsOwnerThread(b, loc, l, pos)) {
    auto ifOp = scf::IfOp::create(b, loc, owner, /*withElseRegion=*/false);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  }
}

SmallVector<unsigned> mlir::tile::matchRegisters(const ThreadLayout &src, const ThreadLayout &dst,
                                                 ArrayRef<int> dstToSrc) {
  // The lanes and warps must place the compared coordinates alike.
  for (const char *name : {"lane", "warp"}) {
    if (src.linear.getInDimSizeLog2(name) != dst.linear.getInDimSizeLog2(name)) return {};
    for (int bit = 0; bit < dst.linear.getInDimSizeLog2(name); ++bit)
      for (unsigned d = 0; d < dstToSrc.size(); ++d)
        if (dstToSrc[d] >= 0 && dst.linear.getBasis(name, bit)[d] != src.linear.getBasis(name, bit)[dstToSrc[d]])
          return {};
  }
  // Then a register matches by its own part of those coordinates; the first of equal
  // source registers (the non-replica) is taken.
  std::map<std::vector<int32_t>, unsigned> byCoord;
  for (unsigned r = 0; r < src.numRegs(); ++r) {
    std::vector<int32_t> key;
    for (int s : dstToSrc)
      if (s >= 0) key.push_back(src.regCoord(r, s));
    byCoord.emplace(std::move(key), r);
  }
  SmallVector<unsigned> match;
  for (unsigned r = 0; r < dst.numRegs(); ++r) {
    std::vector<int32_t> key;
    for (unsigned d = 0; d < dstToSrc.size(); ++d)
      if (dstToSrc[d] >= 0) key.push_back(dst.regCoord(r, d));
    auto it = byCoord.find(key);
    if (it == byCoord.end()) return {};
    match.push_back(it->second);
  }
  return match;
}
