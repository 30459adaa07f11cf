//===- Ring.cpp - the pipeliner's rings: buffers, mbarriers, slots, phases ===//
#include "Ring.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::pipeliner;

Value IndexMath::cst(int64_t v) const { return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v)); }
Value IndexMath::add(Value x, Value y) const { return arith::AddIOp::create(b, loc, x, y); }
Value IndexMath::sub(Value x, Value y) const { return arith::SubIOp::create(b, loc, x, y); }
Value IndexMath::mul(Value x, Value y) const { return arith::MulIOp::create(b, loc, x, y); }
Value IndexMath::divu(Value x, Value y) const { return arith::DivUIOp::create(b, loc, x, y); }
Value IndexMath::remu(Value x, Value y) const { return arith::RemUIOp::create(b, loc, x, y); }
Value IndexMath::cmp(arith::CmpIPredicate p, Value x, Value y) const { return arith::CmpIOp::create(b, loc, p, x, y); }

Value IndexMath::i32(Value v) const {
  Type t = v.getType();
  if (t.isInteger(32)) return v;
  if (t.isIndex()) return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
  return arith::TruncIOp::create(b, loc, b.getI32Type(), v);
}

Value IndexMath::iteration(Value iv, Value from, Value by) const { return divu(sub(iv, from), by); }

Value IndexMath::tripCount(scf::ForOp loop) const {
  const Value lb = loop.getLowerBound(), step = loop.getStep();
  Value span = arith::MaxSIOp::create(b, loc, sub(loop.getUpperBound(), lb), cst(0));
  return divu(add(span, sub(step, cst(1))), step);
}

namespace {

/// A ring of `stages` mbarriers (8 bytes each), or one of them (stages == 0).
MemDescType barrierType(MLIRContext *ctx, int64_t stages) {
  auto layout = SwizzledSharedLayoutAttr::get(ctx, 1, 1, 1, {1, 0});
  SmallVector<int64_t> shape{1, 1};
  if (stages) shape.insert(shape.begin(), stages);
  return MemDescType::get(ctx, shape, IntegerType::get(ctx, 64), layout);
}

/// The bytes a copy into buffer `t` moves (what its mbarrier expects).
int64_t copyBytes(MemDescType t) {
  return t.getNumElements() * int64_t(t.getElementType().getIntOrFloatBitWidth() / 8);
}

} // namespace

Ring Ring::allocate(OpBuilder &b, Location loc, ArrayRef<Candidate> cands, int stages) {
  Ring ring;
  ring.numStages = stages;
  for (const Candidate &c : cands) {
    MemDescType one = c.bufferType();
    SmallVector<int64_t> shape{stages};
    shape.append(one.getShape().begin(), one.getShape().end());
    auto type = MemDescType::get(b.getContext(), shape, one.getElementType(), one.getEncoding());
    ring.buffers.push_back(LocalAllocOp::create(b, loc, type, Value()));
  }
  return ring;
}

void Ring::createFullBarriers(OpBuilder &b, Location loc) {
  Pipeline &all = pipes.emplace_back();
  all.members = llvm::to_vector(llvm::seq<unsigned>(buffers.size()));
  all.full = LocalAllocOp::create(b, loc, barrierType(b.getContext(), numStages), Value());
  InitBarriersOp::create(b, loc, all.full);
  BarrierOp::create(b, loc);
}

void Ring::createProducerConsumerBarriers(OpBuilder &b, Location loc, int consumerWarps,
                                          ArrayRef<SmallVector<unsigned>> pipelines) {
  for (ArrayRef<unsigned> members : pipelines) {
    Pipeline &p = pipes.emplace_back();
    p.members.assign(members.begin(), members.end());
    p.full = LocalAllocOp::create(b, loc, barrierType(b.getContext(), numStages), Value());
    p.empty = LocalAllocOp::create(b, loc, barrierType(b.getContext(), numStages), Value());
    InitBarriersOp::create(b, loc, p.full, 1);
    InitBarriersOp::create(b, loc, p.empty, consumerWarps);
  }
  BarrierOp::create(b, loc);
}

Value Ring::slot(const IndexMath &m, Value g) const { return m.i32(m.remu(g, m.cst(numStages))); }

Value Ring::phase(const IndexMath &m, Value g) const {
  return m.i32(arith::AndIOp::create(m.b, m.loc, m.divu(g, m.cst(numStages)), m.cst(1)));
}

Value Ring::emptyPhase(const IndexMath &m, Value g) const {
  Value one = m.cst(1);
  Value phaseOfG = arith::AndIOp::create(m.b, m.loc, m.divu(g, m.cst(numStages)), one);
  return m.i32(arith::XOrIOp::create(m.b, m.loc, phaseOfG, one));
}

Value Ring::barrierAt(OpBuilder &b, Location loc, Value bars, Value slot) const {
  return MemDescIndexOp::create(b, loc, barrierType(b.getContext(), 0), bars, slot);
}

Value Ring::slotView(OpBuilder &b, Location loc, unsigned i, Value slot) const {
  auto ringType = cast<MemDescType>(buffers[i].getType());
  auto one = MemDescType::get(b.getContext(), ringType.getShape().drop_front(), ringType.getElementType(),
                              ringType.getEncoding());
  return MemDescIndexOp::create(b, loc, one, buffers[i], slot);
}

void Ring::waitFull(const IndexMath &m, Value g, unsigned pipe) const {
  Value s = slot(m, g);
  waitFull(m.b, m.loc, s, phase(m, g), pipe);
}

void Ring::waitFull(OpBuilder &b, Location loc, Value slot, Value parity, unsigned pipe) const {
  BarrierWaitOp::create(b, loc, barrierAt(b, loc, full(pipe), slot), parity);
}

void Ring::issueTma(OpBuilder &b, Location loc, ArrayRef<Candidate> cands, ArrayRef<SmallVector<Value>> offsets,
                    Value slot, Value pred, unsigned pipe) const {
  ArrayRef<unsigned> members = pipes[pipe].members;
  Value bar = barrierAt(b, loc, full(pipe), slot);
  int64_t bytes = 0;
  for (unsigned i : members)
    if (cands[i].tma) bytes += copyBytes(cands[i].bufferType());
  BarrierExpectOp::create(b, loc, bar, pred, b.getI32IntegerAttr(bytes));
  const SmallVector<Value> *next = offsets.begin();
  for (auto [i, c] : llvm::enumerate(cands)) {
    if (!c.tma) continue;
    ArrayRef<Value> at = *next++;
    if (!llvm::is_contained(members, unsigned(i))) continue;
    LoadOp load = c.load;
    AsyncTmaLoadOp::create(b, loc, load.getDesc(), at, slotView(b, loc, i, slot), bar, pred);
  }
}

void Ring::readFromSlot(OpBuilder &b, Location loc, MutableArrayRef<Candidate> cands, Value slot) const {
  // Every view first: `b` may insert before a load about to go (a body's first op, where
  // the schedule inserts at the start of the body), and continues after the last view.
  SmallVector<Value> views;
  for (auto [c, ring] : llvm::zip(cands, buffers))
    views.push_back(MemDescIndexOp::create(b, loc, c.alloc.getType(), ring, slot));
  if (!views.empty()) b.setInsertionPointAfter(views.back().getDefiningOp());
  for (auto [c, view] : llvm::zip(cands, views)) {
    c.alloc.replaceAllUsesWith(view);
    c.alloc.erase();
    c.load.erase();
  }
}

void Ring::releaseBarriers(OpBuilder &b, Location loc) const {
  BarrierOp::create(b, loc);
  for (const Pipeline &p : pipes)
    for (Value bars : {p.full, p.empty})
      if (bars) InvalidateBarriersOp::create(b, loc, bars);
}
