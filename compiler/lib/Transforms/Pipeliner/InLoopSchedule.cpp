//===- InLoopSchedule.cpp - copies run ahead within one loop --------------===//
// For loop iteration j (0-based) with S stages, copying A = S - 1 iterations ahead (S - 2
// with a wgmma group in flight, below), the transformed loop is
//   prologue:  copy(iteration i) into ring[i] for i < A, one commit group each
//   iteration j:
//     async_wait(A - 1)              -- this thread's copies for iteration j landed
//     copy(iteration j + A) into ring[(j + A) % S]; commit
//     ... local_load ring[j % S] ... -- instead of load → local_alloc → local_load
//   after:     async_wait(0)
// tile-insert-barriers then puts one barrier after the wait: it publishes the other
// threads' copies and orders iteration j - 1's reads of the slot being refilled before
// the refill. A copy past the end is masked off (zero bytes read, the slot zero-filled).
// Addresses of iteration j + A are the loop body's address computation cloned with
// the induction variable advanced (the candidate's slice).
// A tile.warpgroup_dot in the loop that accumulates into the loop-carried value and
// reads only the rings keeps one wgmma group in flight (pendings = 1, one
// tile.warpgroup_dot_wait after the loop): iteration j's wgmmas overlap iteration j+1's
// copies. Its ring slot is then read until iteration j + 1 ends, so the copies run
// S - 2 iterations ahead instead of S - 1: the slot refilled in iteration j was read by
// iteration j - 2, which every warpgroup has waited for before the barrier of iteration j.
//
// TMA copies (Candidates.cpp) use the ring's `full` mbarriers: thread 0 announces the slot's
// bytes (tile.barrier_expect) and issues the copies (tile.async_tma_load) for iteration j + A,
// and every thread waits for slot j % S's phase (j / S) & 1 (tile.barrier_wait) before
// reading it. No thread computes an address, and no barrier is needed to publish the data;
// the one before the refill (the slot's last reader) stays.
#include "Ring.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-pipeline"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::pipeliner;

namespace {

/// Pointers and mask of `c`'s load for the iteration whose induction value is `iv`,
/// masked off entirely unless `inRange`.
std::pair<Value, Value> addressesAt(OpBuilder &b, const Candidate &c, scf::ForOp loop, Value iv, Value inRange) {
  IRMapping map;
  map.map(loop.getInductionVar(), iv);
  for (Operation *op : c.slice) b.clone(*op, map);
  LoadOp load = c.load;
  Location loc = load.getLoc();
  Value ptrs = map.lookupOrDefault(load.getPtr());
  auto type = cast<RankedTensorType>(load.getType());
  auto maskType = RankedTensorType::get(type.getShape(), b.getI1Type(), type.getEncoding());
  Value mask = SplatOp::create(b, loc, maskType, inRange);
  if (load.getMask()) mask = arith::AndIOp::create(b, loc, map.lookupOrDefault(load.getMask()), mask);
  return {ptrs, mask};
}

/// The copies of the iteration whose induction value is `iv` into ring slot `slot`:
/// cp.async for the pointer candidates (one commit group), TMA for the others, each masked
/// off past the loop's end.
void issueCopies(const IndexMath &m, const LoopPlan &plan, const Ring &ring, Value iv, Value slot) {
  scf::ForOp loop = plan.loop;
  Value inRange = m.cmp(arith::CmpIPredicate::slt, iv, loop.getUpperBound());
  if (plan.anyTma()) {
    SmallVector<SmallVector<Value>> offsets;
    for (const Candidate &c : plan.cands)
      if (c.tma) offsets.push_back(boxOffsetsAt(m.b, c, loop, iv, IRMapping()));
    ring.issueTma(m.b, m.loc, plan.cands, offsets, slot, inRange);
  }
  if (!plan.anyCpAsync()) return;
  for (auto [i, c] : llvm::enumerate(plan.cands)) {
    if (c.tma) continue;
    auto [ptrs, mask] = addressesAt(m.b, c, loop, iv, inRange);
    auto copy = AsyncCopyOp::create(m.b, m.loc, ptrs, ring.slotView(m.b, m.loc, i, slot), mask);
    LoadOp load = c.load;
    if (std::optional<unsigned> width = vectorWidth(load)) setVectorWidth(copy, *width);
  }
  AsyncCommitGroupOp::create(m.b, m.loc);
}

} // namespace

void mlir::tile::pipeliner::waitForDots(OpBuilder &b, Location loc, scf::ForOp loop,
                                        ArrayRef<WarpGroupDotOp> inFlight) {
  if (inFlight.empty()) return;
  SmallVector<Value> carried;
  SmallVector<Type> types;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (WarpGroupDotOp dot : inFlight) {
    dot.setPendings(1);
    for (OpOperand &use : dot->getUses())
      if (use.getOwner() == yield) carried.push_back(loop.getResult(use.getOperandNumber()));
  }
  for (Value v : carried) types.push_back(v.getType());
  auto wait = WarpGroupDotWaitOp::create(b, loc, types, carried, b.getI32IntegerAttr(0));
  for (auto [v, waited] : llvm::zip(carried, wait.getOutputs())) v.replaceAllUsesExcept(waited, wait);
  b.setInsertionPointAfter(wait);
}

void mlir::tile::pipeliner::pipelineInLoop(LoopPlan &plan) {
  scf::ForOp loop = plan.loop;
  const int stages = plan.stages, ahead = plan.ahead;
  LLVM_DEBUG(llvm::dbgs() << "tile-pipeline: loop at " << loop.getLoc() << ": rings within the loop\n");
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  IndexMath m{b, loc, loop.getInductionVar().getType()};

  // The rings and the prologue.
  Ring ring = Ring::allocate(b, loc, plan.cands, stages);
  if (plan.anyTma()) ring.createFullBarriers(b, loc);
  for (int i = 0; i < ahead; ++i) {
    Value iv = m.add(loop.getLowerBound(), m.mul(loop.getStep(), m.cst(i)));
    issueCopies(m, plan, ring, iv, arith::ConstantIntOp::create(b, loc, i, 32));
  }

  // Each iteration: wait for its stage, refill the oldest slot, read its stage.
  b.setInsertionPointToStart(loop.getBody());
  if (plan.anyCpAsync()) AsyncWaitOp::create(b, loc, b.getI32IntegerAttr(ahead - 1));
  Value iv = loop.getInductionVar();
  Value j = m.iteration(iv, loop.getLowerBound(), loop.getStep());
  if (plan.anyTma()) ring.waitFull(m, j);
  Value ivAhead = m.add(iv, m.mul(loop.getStep(), m.cst(ahead)));
  Value jAhead = m.add(j, m.cst(ahead));
  issueCopies(m, plan, ring, ivAhead, ring.slot(m, jAhead));
  ring.readFromSlot(b, loc, plan.cands, ring.slot(m, j));

  // No copy may still be landing in the rings when their space is reused (TMA copies past
  // the end are never issued).
  b.setInsertionPointAfter(loop);
  if (plan.anyCpAsync()) AsyncWaitOp::create(b, loc, b.getI32IntegerAttr(0));
  waitForDots(b, loc, loop, plan.inFlight);

  // No thread may still wait on an mbarrier when it is invalidated. After the dots' wait:
  // tile-insert-barriers forgets what a barrier retires, and the wgmmas in flight until that
  // wait still read the rings that later scratch may reuse.
  if (plan.anyTma()) ring.releaseBarriers(b, loc);
}
