//===- CrossTileSchedule.cpp - TMA copies run ahead across persistent tiles ===//
// When the K loop is the inner loop of an scf.for over tiles (a persistent kernel's
// `for t = program_id; t < tiles; t += programs`) and all its copies are TMA, the rings and
// mbarriers are set up once before the tile loop and the copies run ahead across tiles:
// iterations are numbered globally for slots and phases, G = (tiles before this one) x trips
// + j, and the last iterations of one tile's K loop load the next tile's first blocks (its
// coordinates are the tile loop's slice cloned for the next induction value), so the
// epilogue between two K loops overlaps those copies and no tile starts with an empty
// pipeline. Like every TMA copy (and Triton's), these loads are not ordered after the
// program's own earlier stores.
//
// At a tile's start the schedule issues what the previous tile did not already (all `ahead`
// first iterations for a program's first tile, or when the K loop is shorter than `ahead`);
// iteration j refills for iteration j + ahead of this tile, or past its end iteration
// j + ahead - trips of the next tile.
#include "Ring.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-pipeline"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::pipeliner;

void mlir::tile::pipeliner::pipelineAcrossTiles(LoopPlan &plan) {
  using P = arith::CmpIPredicate;
  scf::ForOp loop = plan.loop;
  auto outer = cast<scf::ForOp>(loop->getParentOp());
  const int ahead = plan.ahead;
  LLVM_DEBUG(llvm::dbgs() << "tile-pipeline: loop at " << loop.getLoc()
                          << ": rings across the tile loop, copies ahead into the next tile\n");
  Location loc = loop.getLoc();
  const Value lb = loop.getLowerBound(), step = loop.getStep();

  // Before the tile loop: rings, mbarriers and the K loop's trip count.
  OpBuilder b(outer);
  IndexMath m{b, loc, loop.getInductionVar().getType()};
  Ring ring = Ring::allocate(b, loc, plan.cands, plan.stages);
  ring.createFullBarriers(b, loc);
  Value trips = m.tripCount(loop);

  // At the tile's start: its global first iteration, the next tile's coordinates, the
  // iterations the previous tile did not issue.
  b.setInsertionPoint(loop);
  const Value o = outer.getInductionVar();
  Value tileIndex = m.iteration(o, outer.getLowerBound(), outer.getStep());
  Value first = m.mul(tileIndex, trips);
  Value hasPrev = m.cmp(P::sgt, o, outer.getLowerBound());
  Value nextO = m.add(o, outer.getStep());
  Value hasNext = m.cmp(P::slt, nextO, outer.getUpperBound());
  IRMapping nextTile;
  nextTile.map(o, nextO);
  for (Operation *op : *plan.tileSlice) b.clone(*op, nextTile);
  Value unissued = m.sub(m.cst(ahead), trips); // first iterations no earlier tile issued
  auto offsetsAt = [&](Value iv, const IRMapping &outside) {
    SmallVector<SmallVector<Value>> offsets;
    for (const Candidate &c : plan.cands) offsets.push_back(boxOffsetsAt(b, c, loop, iv, outside));
    return offsets;
  };
  for (int d = 0; d < ahead; ++d) {
    // Iteration d exists, and no earlier tile issued it: this is the program's first tile,
    // or the previous tile's K loop was too short to run d iterations into this one.
    Value notIssued = m.cmp(P::slt, m.cst(d), unissued);
    Value firstTile = arith::XOrIOp::create(b, loc, hasPrev, arith::ConstantIntOp::create(b, loc, 1, 1));
    Value issue = arith::OrIOp::create(b, loc, firstTile, notIssued);
    Value exists = m.cmp(P::slt, m.cst(d), trips);
    Value pred = arith::AndIOp::create(b, loc, exists, issue);
    Value slot = ring.slot(m, m.add(first, m.cst(d)));
    ring.issueTma(b, loc, plan.cands, offsetsAt(m.add(lb, m.mul(step, m.cst(d))), IRMapping()), slot, pred);
  }

  // Each iteration: wait for its stage, refill `ahead` iterations on (this tile or the
  // next), read its stage.
  b.setInsertionPointToStart(loop.getBody());
  Value j = m.iteration(loop.getInductionVar(), lb, step);
  Value g = m.add(first, j);
  ring.waitFull(m, g);
  Value d = m.add(j, m.cst(ahead));
  Value e = m.sub(d, trips);
  Value inThisTile = m.cmp(P::slt, d, trips);
  SmallVector<SmallVector<Value>> here = offsetsAt(m.add(lb, m.mul(step, d)), IRMapping());
  SmallVector<SmallVector<Value>> next = offsetsAt(m.add(lb, m.mul(step, e)), nextTile);
  for (auto [h, n] : llvm::zip(here, next))
    for (auto [x, y] : llvm::zip(h, n)) x = arith::SelectOp::create(b, loc, inThisTile, x, y);
  Value pred =
      arith::OrIOp::create(b, loc, inThisTile, arith::AndIOp::create(b, loc, m.cmp(P::slt, e, trips), hasNext));
  ring.issueTma(b, loc, plan.cands, here, ring.slot(m, m.add(g, m.cst(ahead))), pred);
  ring.readFromSlot(b, loc, plan.cands, ring.slot(m, g));

  b.setInsertionPointAfter(loop);
  waitForDots(b, loc, loop, plan.inFlight);
  // After the last tile (see pipelineInLoop).
  b.setInsertionPointAfter(outer);
  ring.releaseBarriers(b, loc);
}
