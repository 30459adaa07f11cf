//===- WarpGroupTurns.cpp - consumer warpgroups take turns at their wgmmas ===//
// FlashAttention-3's ping-pong. Two consumer warpgroups that each issue a dot, wait for it and
// compute on its result (attention: S = Q Kᵀ, the softmax, O += P V) would otherwise issue
// their wgmmas at the same moments and run their softmax at the same moments, leaving the
// tensor cores idle meanwhile. Taking turns (tile.turn_wait before each dot, tile.turn_pass
// once it is issued, then its wait) orders the issues S₀ S₁ PV₀ PV₁ ...: while one warpgroup
// computes its softmax the other's wgmmas run.
//
// Dots issued back to back, each independent of those before, share one turn and stay in
// flight together, each waited for only before its first user; an accumulator's dot alone in
// its turn (the backward's dV) runs on until the loop's next dot.
//
// The turns are named barriers, one per warpgroup; every warpgroup runs the same loops with
// the same trip counts (the bounds are the program's), so each passes and takes the same number
// of turns. The last warpgroup passes once before the loops, so the first
// goes first, and skips its pass after the last turn (the loops' last iteration, counted
// globally as the ring counts them), so that every pass is taken and no barrier is left
// half-arrived when the loops end.
#include "Ring.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-warp-specialize"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::pipeliner;

namespace {

/// The dots of `p`'s loop that take turns: all of its warpgroup dots when they are issued
/// directly in its body and each waits as it is issued (none in flight across iterations or
/// beside another); else none.
SmallVector<WarpGroupDotOp> dotsTakingTurns(const LoopPlan &p) {
  if (!p.inFlight.empty()) return {};
  scf::ForOp loop = p.loop;
  SmallVector<WarpGroupDotOp> dots;
  bool simple = true;
  loop.getBody()->walk([&](Operation *op) {
    if (isa<WarpGroupDotWaitOp>(op)) simple = false;
    if (auto dot = dyn_cast<WarpGroupDotOp>(op)) {
      if (dot->getBlock() != loop.getBody() || dot.getPendings() != 0) simple = false;
      dots.push_back(dot);
    }
  });
  return simple ? dots : SmallVector<WarpGroupDotOp>{};
}

} // namespace

unsigned mlir::tile::pipeliner::takeTurnsAtDots(MutableArrayRef<LoopPlan> plans, ArrayRef<Value> iterations,
                                                Value total, int groups) {
  SmallVector<SmallVector<WarpGroupDotOp>> dots;
  for (const LoopPlan &p : plans) {
    dots.push_back(dotsTakingTurns(p));
    if (dots.back().empty()) return 0; // every loop's dots take turns, or none
  }
  scf::ForOp first = plans.front().loop;
  Location loc = first.getLoc();
  auto groupsAttr = IntegerAttr::get(IntegerType::get(first.getContext(), 32), groups);
  OpBuilder b(first);
  IndexMath m{b, loc, total.getType()};
  Value noTurns = m.cmp(arith::CmpIPredicate::eq, total, m.cst(0));
  TurnPassOp::create(b, loc, groupsAttr, b.getI32IntegerAttr(groups - 1), noTurns);
  Value lastIteration = m.sub(total, m.cst(1));
  // `dot` waited for right before `at`, as late as its wgmmas allow: wait_group N with N the
  // dots (each its own group) issued between them.
  auto waitBefore = [&](WarpGroupDotOp dot, Operation *at) -> Operation * {
    int issuedAfter = 0;
    for (Operation *op = dot->getNextNode(); op != at; op = op->getNextNode()) issuedAfter += isa<WarpGroupDotOp>(op);
    b.setInsertionPoint(at);
    auto done = WarpGroupDotWaitOp::create(b, dot.getLoc(), TypeRange{dot.getType()}, ValueRange{dot.getResult()},
                                           b.getI32IntegerAttr(issuedAfter));
    dot.getResult().replaceAllUsesExcept(done.getResult(0), done);
    return done;
  };
  // The slot frees (tile.barrier_arrive) strictly between `from` and `to` move after `after`,
  // in order: a slot is freed once the dots before it that may read it are waited for.
  auto freeAfter = [](Operation *from, Operation *to, Operation *after) {
    SmallVector<Operation *> frees;
    for (Operation *op = from->getNextNode(); op && op != to; op = op->getNextNode())
      if (isa<BarrierArriveOp>(op)) frees.push_back(op);
    for (Operation *free : frees) {
      free->moveAfter(after);
      after = free;
    }
    return after;
  };
  unsigned turns = 0;
  for (auto [loopDots, g] : llvm::zip(dots, iterations))
    for (size_t i = 0; i < loopDots.size();) {
      // Dots issued back to back, each independent of those before it (attention's backward:
      // S and dP; dQᵀ and dK), share one turn and stay in flight together, so that the work on
      // the first's result runs during the others' wgmmas (as OverlapDots.cpp). A register a
      // may be read by any but the first.
      SmallVector<WarpGroupDotOp> run{loopDots[i++]};
      while (!run.front().hasRegisterA() && i < loopDots.size() && firstUser(loopDots[i]) &&
             independentPartnerOf(run.back(), /*acrossMbarriers=*/true, /*registerA=*/true) == loopDots[i] &&
             llvm::all_of(run, [&](WarpGroupDotOp d) { return usedOnlyAfter(d.getResult(), loopDots[i]); }))
        run.push_back(loopDots[i++]);
      b.setInsertionPoint(run.front());
      TurnWaitOp::create(b, run.front().getLoc(), groupsAttr, IntegerAttr());
      for (WarpGroupDotOp d : run) d.setPendings(1);
      b.setInsertionPointAfter(run.back());
      Value lastTurn = run.back() == loopDots.back() ? m.cmp(arith::CmpIPredicate::eq, g, lastIteration) : Value();
      Operation *pass = TurnPassOp::create(b, run.front().getLoc(), groupsAttr, IntegerAttr(), lastTurn);
      // Each dot is waited for before its result's first user, and the slots freed between
      // are freed after that wait (a little later, rather than the dot waited early); the
      // first right after the turn, unless it is alone and only the loop's yield reads it (an
      // accumulator, as dV's): it then runs on until the loop's next dot is issued, its
      // registers, a register a's too, untouched until the wait. Not later: where a younger
      // dot's result is read before an older one's wait, ptxas serialises every wgmma of the
      // kernel (C7514, "Potential Performance Loss").
      Operation *yield = run.front()->getBlock()->getTerminator();
      Operation *firstAt = firstUser(run.front());
      if (firstAt != yield || run.size() > 1) firstAt = pass->getNextNode();
      else if (i < loopDots.size()) firstAt = loopDots[i];
      Operation *after = freeAfter(run.front(), firstAt, waitBefore(run.front(), firstAt));
      for (size_t k = 1; k < run.size(); ++k) {
        Operation *done = waitBefore(run[k], firstUser(run[k]));
        if (after->isBeforeInBlock(done)) after = freeAfter(after, done, done);
      }
      ++turns;
    }
  LLVM_DEBUG(llvm::dbgs() << "tile-warp-specialize: " << groups << " consumer warpgroups take turns at " << turns
                          << " dot(s)\n");
  return turns;
}
