//===- WarpSpecialize.cpp - tile-warp-specialize: producer and consumer warps ===//
// A K loop marked `tile.warp_specialize` whose copies are all TMA and whose dots stay in
// flight (the pipeliner's schedule, planLoop), at the kernel's top level after only register
// work, is split into a tile.warp_specialize op. A producer warp (an extra warpgroup, most of
// its registers given to the consumers) runs the loop's trips again issuing only the copies:
// iteration j waits until slot j % S is free (the ring's `empty` mbarriers: one arrival per
// consumer warp), then announces and starts its copies on the `full` mbarriers. The consumer
// warps (the kernel's num_warps, its layouts unchanged) run the loop without copies: wait for
// the slot, wgmma, and once iteration j - 1's wgmmas have retired (the wait that keeps one
// group in flight) free its slot; then the epilogue. No thread of the consumers issues a copy
// or computes a box, and the producer runs up to S - 1 iterations ahead without waiting on the
// consumers' barrier, so the copies keep going while the consumers compute.
// The K loop of a persistent tile loop (the plan's tileSlice) splits at the tile loop: the
// producer walks the same tiles (their coordinates from the tile loop's slice), iterations
// numbered globally as in CrossTileSchedule.cpp, so it loads the next tile's blocks while the
// consumers store a tile; the consumers free a tile's last slot after its final wgmma wait.
//
// It runs just before tile-pipeline, which pipelines the loops it leaves (a marked loop that
// cannot be split is pipelined as any other).
#include "Ring.h"
#include "tile/Analysis/SharedMemory.h"
#include "tile/Transforms/Passes.h"
#include "tile/Transforms/Preconditions.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-warp-specialize"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEWARPSPECIALIZE
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::pipeliner;

namespace {

/// The loop a warp-specialised K loop splits the kernel at: itself, or the persistent tile
/// loop around it.
scf::ForOp splitPoint(const LoopPlan &plan) {
  scf::ForOp loop = plan.loop;
  return plan.tileSlice ? cast<scf::ForOp>(loop->getParentOp()) : loop;
}

/// Why `plan`'s loop cannot run warp-specialised (the file comment), or null when it can: its
/// copies all TMA, its dots in flight; it (or the tile loop around it, without carried values)
/// in the kernel's body after only register work (which every warp repeats: no memory access,
/// no shared-memory scratch); whole consumer warpgroups.
const char *whyNotWarpSpecialized(const LoopPlan &plan) {
  if (plan.inFlight.empty()) return "its dots do not stay in flight";
  if (plan.anyCpAsync()) return "a copy is not by TMA";
  scf::ForOp top = splitPoint(plan);
  auto func = dyn_cast<func::FuncOp>(top->getParentOp());
  std::optional<unsigned> warps = func ? kernelNumWarps(func) : std::nullopt;
  if (!func || !func->hasAttr(kKernelAttr)) return "it is not in the kernel's body";
  if (!warps || *warps % 4 || *warps + 4 > 32)
    return "the kernel's warps are not whole warpgroups with room for a producer warpgroup";
  if (plan.tileSlice && top.getNumResults()) return "the tile loop carries values";
  for (Operation *op = &top->getBlock()->front(); op != top; op = op->getNextNode())
    if (op->getNumRegions() || !isMemoryEffectFree(op) || scratchBytes(op))
      return "work before it is not register work every warp may repeat";
  if (top->getBlock()->getTerminator()->getNumOperands() != 0) return "the kernel returns values";
  return nullptr;
}

/// setmaxnreg's counts (producer, consumers) for `warps` consumer warps beside the producer
/// warpgroup: the producer keeps 40 registers and the consumers share the rest of the 64K
/// (232 each for two warpgroups, as CUTLASS's). (0, 0), unchanged, where the launch's even
/// share already gives every thread the most it can hold (255).
std::pair<int, int> registerSplit(int warps) {
  constexpr int kRegisters = 65536, kProducer = 40;
  if (kRegisters / (32 * (warps + 4)) >= 255) return {0, 0};
  return {kProducer, std::min(256, (kRegisters - 128 * kProducer) / (32 * warps) / 8 * 8)};
}

/// The loop, its copies all TMA, split into a producer warp and the consumers (the file
/// comment): tile.warp_specialize, its consumers region the loop (or the persistent tile loop
/// around it) and the rest of the kernel. Iterations are numbered globally across tiles for
/// the slots and phases, G = (tiles before) x trips + j.
void warpSpecialize(LoopPlan &plan) {
  scf::ForOp loop = plan.loop;
  scf::ForOp top = splitPoint(plan);
  const bool acrossTiles = plan.tileSlice.has_value();
  auto func = cast<func::FuncOp>(top->getParentOp());
  const int warps = int(*kernelNumWarps(func));
  const int stages = plan.stages;
  Location loc = loop.getLoc();
  const Value lb = loop.getLowerBound(), step = loop.getStep();

  // Rings, both mbarrier rings and the K loop's trip count, while every warp is still here.
  OpBuilder b(top);
  IndexMath m{b, loc, loop.getInductionVar().getType()};
  Ring ring = Ring::allocate(b, loc, plan.cands, stages);
  ring.createProducerConsumerBarriers(b, loc, warps);
  Value trips = m.tripCount(loop);
  auto [producerRegisters, consumerRegisters] = registerSplit(warps);
  LLVM_DEBUG(llvm::dbgs() << "tile-warp-specialize: loop at " << loop.getLoc() << ": " << warps
                          << " consumer warps and a producer warpgroup, " << stages << " stages"
                          << (acrossTiles ? ", across the persistent tile loop" : "") << "; setmaxnreg "
                          << producerRegisters << "/" << consumerRegisters << "\n");
  auto split = WarpSpecializeOp::create(b, loc, warps, producerRegisters, consumerRegisters);
  Block *producer = &split.getProducer().emplaceBlock();
  Block *consumers = &split.getConsumers().emplaceBlock();
  Block *body = top->getBlock();
  consumers->getOperations().splice(consumers->end(), body->getOperations(), Block::iterator(top),
                                    Block::iterator(body->getTerminator()));

  // The first global iteration of the tile the tile loop's induction value `o` names (0
  // without a tile loop).
  auto firstOfTile = [&](Value o) -> Value {
    if (!acrossTiles) return m.cst(0);
    return m.mul(m.iteration(o, top.getLowerBound(), top.getStep()), trips);
  };

  // The producer (each tile's coordinates from the tile loop's slice): iteration G waits for
  // slot G % S to be free, then copies into it.
  b.setInsertionPointToStart(producer);
  IRMapping outside;
  Value g0 = m.cst(0);
  if (acrossTiles) {
    auto tiles = scf::ForOp::create(b, loc, top.getLowerBound(), top.getUpperBound(), top.getStep());
    b.setInsertionPointToStart(tiles.getBody());
    outside.map(top.getInductionVar(), tiles.getInductionVar());
    for (Operation *op : *plan.tileSlice) b.clone(*op, outside);
    g0 = firstOfTile(tiles.getInductionVar());
  }
  auto copies = scf::ForOp::create(b, loc, lb, loop.getUpperBound(), step);
  b.setInsertionPointToStart(copies.getBody());
  Value g = m.add(g0, m.iteration(copies.getInductionVar(), lb, step));
  Value slot = ring.slot(m, g);
  Value parity = ring.emptyPhase(m, g);
  BarrierWaitOp::create(b, loc, ring.barrierAt(b, loc, ring.empty(), slot), parity);
  SmallVector<SmallVector<Value>> offsets;
  for (const Candidate &c : plan.cands) offsets.push_back(boxOffsetsAt(b, c, loop, copies.getInductionVar(), outside));
  ring.issueTma(b, loc, plan.cands, offsets, slot, arith::ConstantIntOp::create(b, loc, 1, 1));

  // The consumers: wait for the slot, read it; after the iteration's dots (which retire the
  // previous iteration's) each warp frees the previous iteration's slot, and in a tile loop
  // after the loop's last wait the last one's, for the next tile's copies. (Without a tile
  // loop no copy waits for that slot: no arrival, whose branch on the trip count would also
  // lead LLVM to split the accumulators' paths around the loop, which makes ptxas serialise
  // the wgmmas, C7515.)
  b.setInsertionPoint(loop);
  Value first = firstOfTile(acrossTiles ? top.getInductionVar() : Value());
  b.setInsertionPointToStart(loop.getBody());
  Value j = m.iteration(loop.getInductionVar(), lb, step);
  Value gc = m.add(first, j);
  ring.waitFull(m, gc);
  ring.readFromSlot(b, loc, plan.cands, ring.slot(m, gc));
  b.setInsertionPoint(loop.getBody()->getTerminator());
  Value notFirst = m.cmp(arith::CmpIPredicate::ugt, j, m.cst(0));
  Value previousSlot = ring.slot(m, m.add(gc, m.cst(stages - 1)));
  BarrierArriveOp::create(b, loc, ring.barrierAt(b, loc, ring.empty(), previousSlot), notFirst);
  b.setInsertionPointAfter(loop);
  waitForDots(b, loc, loop, plan.inFlight);
  if (acrossTiles) {
    Value anyTrip = m.cmp(arith::CmpIPredicate::ugt, trips, m.cst(0));
    Value lastSlot = ring.slot(m, m.add(first, m.add(trips, m.cst(-1))));
    BarrierArriveOp::create(b, loc, ring.barrierAt(b, loc, ring.empty(), lastSlot), anyTrip);
  }
  // Every copy has landed and every producer wait returned (the last consumer wait needed
  // the last copy, issued after the producer's last wait): the rings may go (as after an
  // in-loop schedule).
  if (acrossTiles) b.setInsertionPointAfter(top);
  ring.releaseBarriers(b, loc);
}

struct WarpSpecialize : mlir::tile::impl::TileWarpSpecializeBase<WarpSpecialize> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(requireLayouts(module, getArgument()))) return signalPassFailure();
    if (targetComputeCapability(module) < 80) return; // the pipeliner's copies are sm_80+
    SmallVector<scf::ForOp> marked;
    module.walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kWarpSpecializeAttr)) marked.push_back(loop);
    });
    for (scf::ForOp loop : marked) {
      // planLoop records the TMA maps of the descriptors it copies on the module; a loop left
      // alone must leave the module as it was, for tile-pipeline to record them in its order.
      DictionaryAttr moduleAttrs = module->getAttrDictionary();
      std::optional<LoopPlan> plan = planLoop(loop, numStages);
      const char *whyNot = plan ? whyNotWarpSpecialized(*plan) : "nothing to pipeline";
      if (!whyNot) {
        warpSpecialize(*plan);
        continue;
      }
      LLVM_DEBUG(llvm::dbgs() << "tile-warp-specialize: loop at " << loop.getLoc()
                              << " left to tile-pipeline: " << whyNot << "\n");
      module->setAttrs(moduleAttrs);
    }
  }
};

} // namespace
