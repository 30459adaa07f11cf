//===- Pipeliner.h - the software pipeliner's phases ----------------------===//
// The software pipeliner turns a loop's dot operand loads (tile.load -> tile.local_alloc,
// read by tile.local_load or warpgroup dots) into copies that run ahead of the loop's
// iterations into rings of shared-memory buffers. As Triton's pipeliner, in phases:
//   schedule  (Candidates.cpp)  which loads, by cp.async or TMA, how many stages, how far
//                               ahead, whether the dots stay in flight: planLoop -> LoopPlan
//   expand    one schedule per loop shape, each on a Ring (Ring.h: buffers, mbarriers,
//             slot(g), phase(g)):
//               InLoopSchedule.cpp     a prologue, then each iteration refills a slot
//               CrossTileSchedule.cpp  the K loop of a persistent tile loop, ahead across tiles
//               WarpSpecialize.cpp     a producer warp and consumer warps (its own pass,
//                                      tile-warp-specialize, run just before tile-pipeline);
//               WarpGroupTurns.cpp     its consumer warpgroups taking turns at their dots
//               OverlapIterations.cpp  its consumers' next first dot issued with this second one
//               OneShotTma.cpp         outside loops: a block copied once, by TMA
//               OverlapDots.cpp        two independent dots of a block in flight together
//   lower     the ops made here (tile.async_copy, tile.async_tma_load, tile.barrier_wait, ...)
//             are lowered by convert-tile-to-llvm; tile-insert-barriers adds the barriers.
#ifndef TILE_TRANSFORMS_PIPELINER_PIPELINER_H
#define TILE_TRANSFORMS_PIPELINER_PIPELINER_H

#include "tile/Dialect/Tile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <optional>

namespace mlir::tile::pipeliner {

/// One load the pipeliner replaces by copies into a ring: `load` feeds only `alloc`, whose
/// buffer only local loads, warpgroup dots and transposed views read, all in the loop body.
struct Candidate {
  LoadOp load;
  LocalAllocOp alloc;
  /// Body ops computing the pointers and mask (TMA: the box offsets), in order; they reach
  /// only the induction variable and values from outside the loop.
  SmallVector<Operation *> slice;
  /// Copied by the tensor memory accelerator (else cp.async).
  bool tma = false;

  /// The staged buffer's type: one slot of the ring.
  MemDescType bufferType() const { return LocalAllocOp(alloc).getType(); }
  /// The staged buffer.
  Value buffer() const { return LocalAllocOp(alloc).getResult(); }
};

/// What the schedules need of one loop (planLoop's answer).
struct LoopPlan {
  scf::ForOp loop;
  SmallVector<Candidate> cands;
  /// The warpgroup dots that keep one group in flight across iterations (empty: they wait).
  SmallVector<WarpGroupDotOp> inFlight;
  /// Ring slots, and how many iterations ahead the copies run (stages - 1, one less with
  /// dots in flight: their slot is still read until the next iteration ends).
  int stages = 0, ahead = 0;
  /// The K loop of a persistent tile loop, its copies all TMA: the tile loop's ops that
  /// compute a tile's coordinates from its induction variable (tileSlice).
  std::optional<SmallVector<Operation *>> tileSlice;

  bool anyTma() const {
    return llvm::any_of(cands, [](const Candidate &c) { return c.tma; });
  }
  bool anyCpAsync() const {
    return llvm::any_of(cands, [](const Candidate &c) { return !c.tma; });
  }
};

/// The schedule of `loop`: its candidates (their TMA descriptors recorded on the module,
/// recordTma), stages (`numStagesOption` if positive, else the kernel's tile.num_stages, else
/// a default), dots in flight and the persistent tile loop's slice. nullopt when nothing is
/// pipelined: one stage asked for, no candidate, or a second box of a TMA descriptor whose
/// load cannot fall back to cp.async.
std::optional<LoopPlan> planLoop(scf::ForOp loop, int numStagesOption);

/// The box offsets of TMA candidate `c` for the iteration of `loop` whose induction value is
/// `iv` (its slice cloned at `b`); the values from outside the loop the offsets use are taken
/// through `outside` (another tile's, or themselves where it maps nothing).
SmallVector<Value> boxOffsetsAt(OpBuilder &b, const Candidate &c, scf::ForOp loop, Value iv, const IRMapping &outside);

/// After `loop` (at `b`): the dots in flight get pendings = 1 and one
/// tile.warpgroup_dot_wait retires their last groups before anything reads the loop's
/// results; `b` continues after that wait.
void waitForDots(OpBuilder &b, Location loc, scf::ForOp loop, ArrayRef<WarpGroupDotOp> inFlight);

/// The schedules (each consumes the plan: the candidates' loads and buffers are gone after).
void pipelineInLoop(LoopPlan &plan);
void pipelineAcrossTiles(LoopPlan &plan);

/// Warp-specialised (WarpGroupTurns.cpp): the dots of `plans`' loops that wait as they are
/// issued are issued by the `groups` consumer warpgroups in turn (tile.turn_wait and
/// tile.turn_pass around each). `iterations` holds each loop's global iteration (in its body)
/// and `total` the loops' iterations together (defined before the loops), so that the last
/// turn passes nothing on. Returns how many dots take turns.
unsigned takeTurnsAtDots(MutableArrayRef<LoopPlan> plans, ArrayRef<Value> iterations, Value total, int groups);

/// Outside loops (OneShotTma.cpp): a descriptor block at a kernel's top level (or at the top
/// of a warp-specialised kernel's consumers) read only by warpgroup dots (attention's Q block, read by every iteration of the K/V loop after it)
/// becomes one TMA copy into its buffer on an mbarrier of its own, instead of a masked load
/// from registers. Returns how many.
unsigned copyTopLevelBlocksByTma(func::FuncOp kernel);

/// Within blocks (OverlapDots.cpp): two independent warpgroup dots issued back to back both
/// go in flight, the second waited for only before its result's first use. Returns how many
/// pairs.
unsigned overlapIndependentDots(func::FuncOp kernel);
/// The dot issued next after `first` in its block that may go in flight beside it: it reads
/// shared-memory buffers only (with `registerA`, or a register a) and not `first`'s result,
/// and only ops that write no memory (and, with `acrossMbarriers`, a warp-specialised loop's
/// mbarrier waits and arrivals) lie between them. Null where there is none.
WarpGroupDotOp independentPartnerOf(WarpGroupDotOp first, bool acrossMbarriers, bool registerA = false);
/// The first op of `d`'s block that uses its result (directly or inside its regions); null if none.
Operation *firstUser(WarpGroupDotOp d);
/// Whether every use of `v` comes after `op` in `op`'s block.
bool usedOnlyAfter(Value v, Operation *op);
/// The first op after `d` in its block that needs its wgmmas retired: its result's first
/// user, or a tile.barrier_arrive that frees the ring slot it reads, if earlier. Null if none.
Operation *whereDotIsNeeded(WarpGroupDotOp d);

/// Warp-specialised (OverlapIterations.cpp): a consumer loop that issues a dot, computes on its
/// result and feeds that to a second dot (attention) issues the next iteration's first dot with
/// this iteration's second and computes between them while the second runs (a two-stage
/// software pipeline, by scf::pipelineForLoop; an iteration then holds two slots of a ring
/// whose one pipeline both dots read, one of each where each dot reads its own: the caller
/// gives it the slots). False where the loop has another shape
/// (-debug-only says why); an error where MLIR's pipeliner refuses the schedule.
FailureOr<bool> overlapIterations(scf::ForOp loop);
/// Whether `op` may run while a dot reads its buffers: no regions, no memory written.
bool leavesBuffersAlone(Operation *op);
/// Buffers of `block` that stage the same load with the same type and are only read (one
/// per dot that reads the block: attention's backward reads Q as both Qᵀ and Q) become the
/// first of them, so the load has one buffer to pipeline. Returns how many went.
unsigned mergeDuplicateBuffers(Block &block);
/// A load's `other` that is absent or zero (a copy past the end zero-fills).
bool isZero(Value v);
/// Whether only warpgroup dots read `buffer`, directly or through a transposed view.
bool readOnlyByWarpGroupDots(Value buffer);

} // namespace mlir::tile::pipeliner

#endif
