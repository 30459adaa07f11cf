//===- WarpGroupTurns.cpp - consumer warpgroups take turns at their wgmmas ===//
// FlashAttention-3's ping-pong. Two consumer warpgroups that each issue a dot, wait for it and
// compute on its result (attention: S = Q Kᵀ, the softmax, O += P V) would otherwise issue
// their wgmmas at the same moments and run their softmax at the same moments, leaving the
// tensor cores idle meanwhile. Taking turns (tile.turn_wait before each dot, tile.turn_pass
// once it is issued, then its wait) orders the issues S₀ S₁ PV₀ PV₁ ...: while one warpgroup
// computes its softmax the other's wgmmas run.
//
// The turns are named barriers, one per warpgroup; every warpgroup runs the same loops with
// the same trip counts (the bounds are the program's), so each passes and takes the same number
// of turns. Two independent dots issued back to back (the backward's S and dP) share one turn
// and stay in flight together. The last warpgroup passes once before the loops, so the first
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
  auto waitFor = [&](WarpGroupDotOp dot, int pendings) -> Operation * {
    auto done = WarpGroupDotWaitOp::create(b, dot.getLoc(), TypeRange{dot.getType()}, ValueRange{dot.getResult()},
                                           b.getI32IntegerAttr(pendings));
    dot.getResult().replaceAllUsesExcept(done.getResult(0), done);
    return done;
  };
  unsigned turns = 0;
  for (auto [loopDots, g] : llvm::zip(dots, iterations))
    for (size_t i = 0; i < loopDots.size(); ++i) {
      WarpGroupDotOp dot = loopDots[i];
      // An independent dot right after this one shares its turn and stays in flight beside
      // it (attention's backward: S and dP), waited for only where it is needed, so that the
      // work on the first's result runs during the second's wgmmas (as OverlapDots.cpp).
      WarpGroupDotOp next = i + 1 < loopDots.size() ? loopDots[i + 1] : WarpGroupDotOp();
      Operation *partnerNeeded =
          next && !dot.hasRegisterA() && independentPartnerOf(dot, /*acrossMbarriers=*/true) == next
              ? whereDotIsNeeded(next)
              : nullptr;
      WarpGroupDotOp partner = partnerNeeded ? loopDots[++i] : WarpGroupDotOp();
      // A slot the first dot frees between them (its pipeline's last reader) is freed once
      // it is waited for instead.
      SmallVector<Operation *> frees;
      if (partner)
        for (Operation *op = dot->getNextNode(); op != partner; op = op->getNextNode())
          if (isa<BarrierArriveOp>(op)) frees.push_back(op);
      WarpGroupDotOp last = partner ? partner : dot;
      b.setInsertionPoint(dot);
      TurnWaitOp::create(b, dot.getLoc(), groupsAttr, IntegerAttr());
      dot.setPendings(1);
      if (partner) partner.setPendings(1);
      b.setInsertionPointAfter(last);
      Value lastTurn = last == loopDots.back() ? m.cmp(arith::CmpIPredicate::eq, g, lastIteration) : Value();
      TurnPassOp::create(b, dot.getLoc(), groupsAttr, IntegerAttr(), lastTurn);
      Operation *after = waitFor(dot, partner ? 1 : 0);
      for (Operation *free : frees) {
        free->moveAfter(after);
        after = free;
      }
      if (partner) {
        b.setInsertionPoint(partnerNeeded);
        waitFor(partner, 0);
      }
      ++turns;
    }
  LLVM_DEBUG(llvm::dbgs() << "tile-warp-specialize: " << groups << " consumer warpgroups take turns at " << turns
                          << " dot(s)\n");
  return turns;
}
