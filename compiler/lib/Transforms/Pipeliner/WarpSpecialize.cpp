//===- WarpSpecialize.cpp - tile-warp-specialize: producer and consumer warps ===//
// Loops marked `tile.warp_specialize` whose copies are all TMA are split off into a
// tile.warp_specialize op: a producer warp (an extra warpgroup, most of its registers given to
// the consumers) runs the loops' trips again issuing only the copies, and the consumer warps
// (the kernel's num_warps, layouts unchanged) run the loops without them.
//   - A group is one marked loop, or consecutive marked loops in the kernel's body that one
//     ring serves (attention's unmasked key blocks, then the masked ones), or the K loop of a
//     persistent tile loop (the plan's tileSlice: the producer walks the same tiles, so it
//     loads the next tile's blocks while the consumers store a tile).
//   - Iterations are numbered globally (the loops of a group one after the other, tiles one
//     after the other as in CrossTileSchedule.cpp): iteration G uses slot G % S.
//   - Pipelines: copies first read by the same op share a pair of mbarrier rings; with dots
//     waited within the iteration those first read by different ops get their own (attention:
//     K for S = Q Kᵀ, V for P V), so that a slot is freed as soon as its own reader is done.
//   - Producer: iteration G, pipeline by pipeline, waits until slot G % S is free (the
//     pipeline's `empty` mbarriers, one arrival per consumer warp), then arms its `full`
//     mbarrier and starts its copies. It runs up to S - 1 iterations ahead without waiting on
//     the consumers' barrier.
//   - Consumers: wait for a pipeline's copies, compute, free its slot once no wgmma reads it:
//     with dots in flight across iterations (the matmul: one pipeline) the previous iteration's
//     slot after this iteration's dots, else (dots waited within the iteration: attention) the
//     wait just before the pipeline's first reader and the slot freed right after its last.
//     With two consumer warpgroups and waited dots, the warpgroups take turns at their wgmmas
//     (WarpGroupTurns.cpp).
//   - What precedes the loops stays before the split if the producer needs it (loop bounds,
//     box offsets: register work or scalar reads, which every warp may repeat) and moves into
//     the consumers otherwise (attention's Q block, the accumulators' initial values).
// It runs just before tile-pipeline, which pipelines the loops it leaves (a marked loop that
// cannot be split is pipelined as any other; -debug-only=tile-warp-specialize says why).
#include "Ring.h"
#include "tile/Analysis/SharedMemory.h"
#include "tile/Transforms/Passes.h"
#include "tile/Transforms/Preconditions.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
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

/// Loops one producer feeds, in order, and where the kernel splits.
struct Group {
  SmallVector<LoopPlan> plans;
  /// The op the kernel splits at: the first loop, or the persistent tile loop around it.
  Operation *top = nullptr;
  /// The ops before `top` the producer needs (they stay; the rest move to the consumers).
  SetVector<Operation *> producerInputs;

  bool acrossTiles() const { return plans.front().tileSlice.has_value(); }
  /// The kernel-level ops the group spans: `top` and the loops after it.
  bool spans(Operation *op) {
    return op == top || llvm::any_of(plans, [&](LoopPlan &p) { return p.loop.getOperation() == op; });
  }
};

/// `v`'s defining op's ancestor in `body`, or null for `body`'s own arguments.
Operation *anchorIn(Value v, Block *body) {
  Operation *def = v.getDefiningOp();
  if (!def) {
    Block *owner = cast<BlockArgument>(v).getOwner();
    if (owner == body) return nullptr;
    def = owner->getParentOp();
  }
  return body->findAncestorOpInBlock(*def);
}

/// Every value the producer region reads of code outside its loops: bounds, descriptors, box
/// offsets and what the offsets' slices read, the tile loop's bounds and slice.
SmallVector<Value> producerReads(Group &g) {
  SmallVector<Value> reads;
  auto operandsOf = [&](Operation *op) { llvm::append_range(reads, op->getOperands()); };
  for (LoopPlan &p : g.plans) {
    llvm::append_range(reads, ValueRange{p.loop.getLowerBound(), p.loop.getUpperBound(), p.loop.getStep()});
    for (const Candidate &c : p.cands) {
      LoadOp load = c.load;
      reads.push_back(load.getDesc());
      llvm::append_range(reads, load.getDescOffsets());
      for (Operation *op : c.slice) operandsOf(op);
    }
    if (p.tileSlice) {
      auto tiles = cast<scf::ForOp>(p.loop->getParentOp());
      llvm::append_range(reads, ValueRange{tiles.getLowerBound(), tiles.getUpperBound(), tiles.getStep()});
      for (Operation *op : *p.tileSlice) operandsOf(op);
    }
  }
  return reads;
}

/// Whether every warp, the producer's too, may run `op` before the split: register work or a
/// scalar read (a varlen sequence's offsets), no shared-memory scratch.
bool everyWarpMayRun(Operation *op) {
  if (op->getNumRegions() || scratchBytes(op)) return false;
  if (isMemoryEffectFree(op)) return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return effects && effects.onlyHasEffect<MemoryEffects::Read>() &&
         llvm::none_of(op->getResultTypes(), [](Type t) { return isa<RankedTensorType>(t); });
}

/// Fills g.producerInputs; why the producer cannot have what it reads, or null. Register work
/// between the group's loops that the producer needs (a later loop's bounds: the backward's
/// runs of query blocks) moves before the first loop, where both sides see it.
const char *collectProducerInputs(Group &g) {
  Block *body = g.top->getBlock();
  SmallVector<Value> work = producerReads(g);
  SmallVector<Operation *> between;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *anchor = anchorIn(v, body);
    if (!anchor || g.producerInputs.contains(anchor)) continue; // a kernel argument, or seen
    if (g.spans(anchor)) {
      // Inside the group's loops (a slice op or an induction variable the producer clones or
      // maps); a loop's result is the consumers'.
      if (v.getDefiningOp() == anchor) return "a loop's bounds or copies depend on an earlier loop's results";
      continue;
    }
    if (!anchor->isBeforeInBlock(g.top)) {
      // Memory reads stay where they are: a loop before them may write what they read.
      if (anchor->getNumRegions() || !isMemoryEffectFree(anchor))
        return "a loop's bounds or copies depend on memory read between the loops";
      between.push_back(anchor);
    } else if (!everyWarpMayRun(anchor)) {
      return "the copies depend on work that is neither register work nor a scalar read";
    }
    g.producerInputs.insert(anchor);
    llvm::append_range(work, anchor->getOperands());
  }
  llvm::sort(between, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *op : between) op->moveBefore(g.top);
  return nullptr;
}

/// Why `g` cannot run warp-specialised, or null when it can (the file comment).
const char *whyNotWarpSpecialized(Group &g) {
  LoopPlan &first = g.plans.front();
  for (LoopPlan &p : g.plans) {
    if (p.anyCpAsync()) return "a copy is not by TMA";
    if (p.stages != first.stages || p.cands.size() != first.cands.size())
      return "the loops' rings differ (stages, copies)";
    for (auto [a, b] : llvm::zip(p.cands, first.cands))
      if (a.bufferType() != b.bufferType()) return "the loops' rings differ (buffer types)";
    if (p.loop.getInductionVar().getType() != first.loop.getInductionVar().getType())
      return "the loops' induction types differ";
  }
  auto func = dyn_cast<func::FuncOp>(g.top->getParentOp());
  std::optional<unsigned> warps = func ? kernelNumWarps(func) : std::nullopt;
  if (!func || !func->hasAttr(kKernelAttr)) return "it is not in the kernel's body";
  if (!warps || *warps % 4 || *warps + 4 > 32)
    return "the kernel's warps are not whole warpgroups with room for a producer warpgroup";
  if (g.acrossTiles() && g.top->getNumResults()) return "the tile loop carries values";
  if (g.top->getBlock()->getTerminator()->getNumOperands() != 0) return "the kernel returns values";
  return collectProducerInputs(g);
}

/// setmaxnreg's counts (producer, consumers) for `warps` consumer warps beside the producer
/// warpgroup: the producer keeps 24 registers and the consumers share the rest of the 64K
/// (240 each for two warpgroups, as FlashAttention-3's; CUTLASS's 40/232 left the attention
/// backward's 64 x 128 dK/dV tile 16 bytes of spills). (0, 0), unchanged, where the launch's
/// even share already gives every thread the most it can hold (255).
std::pair<int, int> registerSplit(int warps) {
  constexpr int kRegisters = 65536, kProducer = 24;
  if (kRegisters / (32 * (warps + 4)) >= 255) return {0, 0};
  return {kProducer, std::min(256, (kRegisters - 128 * kProducer) / (32 * warps) / 8 * 8)};
}

/// Where loop `p`'s consumers read one pipeline's buffers: its first and last readers in the
/// body (directly or through transposed views); null where nothing reads them.
struct ReadSpan {
  Operation *first = nullptr, *last = nullptr;
};

/// Where the body of `p`'s loop reads candidate `i`'s buffer.
ReadSpan readSpan(const LoopPlan &p, unsigned i) {
  Block *body = scf::ForOp(p.loop).getBody();
  ReadSpan span;
  SmallVector<Value> views{p.cands[i].buffer()};
  while (!views.empty())
    for (Operation *user : views.pop_back_val().getUsers()) {
      if (isa<MemDescTransOp>(user)) {
        views.push_back(user->getResult(0));
        continue;
      }
      Operation *at = body->findAncestorOpInBlock(*user);
      if (!span.first || at->isBeforeInBlock(span.first)) span.first = at;
      if (!span.last || span.last->isBeforeInBlock(at)) span.last = at;
    }
  return span;
}

/// The ring's pipelines (Ring.h): the candidates the same op reads first share one, in the order
/// of those readers, so that the producer copies what the consumers wait for first first. One
/// pipeline of every candidate where the loops' dots stay in flight across iterations (their
/// slots are freed an iteration late, all together) or the loops' readers disagree.
SmallVector<SmallVector<unsigned>> pipelinesOf(ArrayRef<LoopPlan> plans) {
  auto ofLoop = [](const LoopPlan &p) -> SmallVector<SmallVector<unsigned>> {
    SmallVector<std::pair<Operation *, SmallVector<unsigned>>> byReader;
    for (unsigned i = 0; i < p.cands.size(); ++i) {
      Operation *first = readSpan(p, i).first;
      if (!first) return SmallVector<SmallVector<unsigned>>{}; // an unread buffer: one pipeline
      auto *same = llvm::find_if(byReader, [&](auto &r) { return r.first == first; });
      if (same == byReader.end()) byReader.push_back({first, {i}});
      else same->second.push_back(i);
    }
    llvm::sort(byReader, [](auto &x, auto &y) { return x.first->isBeforeInBlock(y.first); });
    return llvm::to_vector(llvm::map_range(byReader, [](auto &r) { return r.second; }));
  };
  SmallVector<SmallVector<unsigned>> all{llvm::to_vector(llvm::seq<unsigned>(plans.front().cands.size()))};
  if (llvm::any_of(plans, [](const LoopPlan &p) { return !p.inFlight.empty(); })) return all;
  SmallVector<SmallVector<unsigned>> pipelines = ofLoop(plans.front());
  for (const LoopPlan &p : plans.drop_front())
    if (ofLoop(p) != pipelines) return all;
  return pipelines.empty() ? all : pipelines;
}

/// Where `p`'s body reads each pipeline's buffers.
SmallVector<ReadSpan> readSpans(const LoopPlan &p, ArrayRef<SmallVector<unsigned>> pipelines) {
  SmallVector<ReadSpan> spans;
  for (ArrayRef<unsigned> members : pipelines) {
    ReadSpan &s = spans.emplace_back();
    for (unsigned i : members) {
      ReadSpan r = readSpan(p, i);
      if (!r.first) continue;
      if (!s.first || r.first->isBeforeInBlock(s.first)) s.first = r.first;
      if (!s.last || s.last->isBeforeInBlock(r.last)) s.last = r.last;
    }
  }
  return spans;
}

/// The consumers' side of loop `p`, whose iteration j is global iteration `base` + j (plus
/// the tile's first with a tile loop): wait for the slot, read it, free it (the file
/// comment); `spans` says where it reads each pipeline. `more` says a later loop of the group
/// refills the ring after this one. Returns the global iteration, in the body.
Value consumeFromRing(LoopPlan &p, Ring &ring, ArrayRef<ReadSpan> spans, Value base, Value trips, Value firstOfTile,
                      bool more) {
  scf::ForOp loop = p.loop;
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  IndexMath m{b, loc, loop.getInductionVar().getType()};
  Value first = firstOfTile ? m.add(base, firstOfTile) : base;
  // Outside the body: an overlapped loop (OverlapIterations.cpp) would carry it.
  Value always = arith::ConstantIntOp::create(b, loc, 1, 1);
  b.setInsertionPointToStart(loop.getBody());
  Value j = m.iteration(loop.getInductionVar(), loop.getLowerBound(), loop.getStep());
  Value gc = m.add(first, j);
  if (p.inFlight.empty()) {
    // Each pipeline's slot waited for just before its first reader and freed right after its
    // last (a dot waits as it is issued): attention's K is free again once S is computed.
    Value slot = ring.slot(m, gc), parity = ring.phase(m, gc);
    ring.readFromSlot(b, loc, p.cands, slot);
    Operation *end = loop.getBody()->getTerminator();
    for (auto [pipe, span] : llvm::enumerate(spans)) {
      b.setInsertionPoint(span.first ? span.first : end);
      ring.waitFull(b, loc, slot, parity, pipe);
      if (span.last) b.setInsertionPointAfter(span.last);
      else b.setInsertionPoint(end);
      BarrierArriveOp::create(b, loc, ring.barrierAt(b, loc, ring.empty(pipe), slot), always);
    }
    return gc;
  }
  ring.waitFull(m, gc);
  ring.readFromSlot(b, loc, p.cands, ring.slot(m, gc));
  // The iteration's dots retired the previous iteration's: its slot is free. After the loop,
  // the last slot once its dots are waited for, where a later copy needs it. (Without one, no
  // arrival: its branch on the trip count would lead LLVM to split the accumulators' paths
  // around the loop, which makes ptxas serialise the wgmmas, C7515.)
  b.setInsertionPoint(loop.getBody()->getTerminator());
  Value notFirst = m.cmp(arith::CmpIPredicate::ugt, j, m.cst(0));
  Value previousSlot = ring.slot(m, m.add(gc, m.cst(ring.stages() - 1)));
  BarrierArriveOp::create(b, loc, ring.barrierAt(b, loc, ring.empty(), previousSlot), notFirst);
  b.setInsertionPointAfter(loop);
  waitForDots(b, loc, loop, p.inFlight);
  if (!firstOfTile && !more) return gc;
  Value anyTrip = m.cmp(arith::CmpIPredicate::ugt, trips, m.cst(0));
  Value lastSlot = ring.slot(m, m.add(first, m.add(trips, m.cst(-1))));
  BarrierArriveOp::create(b, loc, ring.barrierAt(b, loc, ring.empty(), lastSlot), anyTrip);
  return gc;
}

/// The ring slots an overlapped iteration needs (OverlapIterations.cpp), given where it reads
/// each pipeline: it holds the first dot's slot of its own and the second's of the previous
/// iteration. Two where each pipeline is read by one dot alone (attention's K and V apart),
/// else three.
int stagesToOverlap(ArrayRef<ReadSpan> spans) {
  bool onePerDot =
      llvm::all_of(spans, [](ReadSpan s) { return s.first == s.last && isa_and_nonnull<WarpGroupDotOp>(s.first); });
  return onePerDot ? 2 : 3;
}

/// The group split into a producer warp and the consumers (the file comment). Fails where
/// MLIR's pipeliner refuses an overlapped schedule (an error emitted).
LogicalResult warpSpecialize(Group &g) {
  Operation *top = g.top;
  const bool acrossTiles = g.acrossTiles();
  auto func = cast<func::FuncOp>(top->getParentOp());
  const int warps = int(*kernelNumWarps(func));
  const int stages = g.plans.front().stages;
  Location loc = top->getLoc();
  Block *body = top->getBlock();
  SmallVector<Operation *> toConsumers;
  for (Operation *op = &body->front(); op != top; op = op->getNextNode())
    if (!g.producerInputs.contains(op)) toConsumers.push_back(op);

  // Rings, both mbarrier rings and each loop's trip count and first global iteration, while
  // every warp is still here.
  OpBuilder b(top);
  IndexMath m{b, loc, g.plans.front().loop.getInductionVar().getType()};
  Ring ring = Ring::allocate(b, loc, g.plans.front().cands, stages);
  SmallVector<SmallVector<unsigned>> pipelines = pipelinesOf(g.plans);
  ring.createProducerConsumerBarriers(b, loc, warps, pipelines);
  // Where each loop reads each pipeline, while the candidates' buffers are still there.
  SmallVector<SmallVector<ReadSpan>> spans;
  for (LoopPlan &p : g.plans) spans.push_back(readSpans(p, pipelines));
  SmallVector<Value> trips, bases;
  Value next = m.cst(0);
  for (LoopPlan &p : g.plans) {
    bases.push_back(next);
    trips.push_back(m.tripCount(p.loop));
    next = m.add(next, trips.back());
  }
  auto [producerRegisters, consumerRegisters] = registerSplit(warps);
  LLVM_DEBUG(llvm::dbgs() << "tile-warp-specialize: " << g.plans.size() << " loop(s) from " << loc << ": " << warps
                          << " consumer warps and a producer warpgroup, " << stages << " stages, " << pipelines.size()
                          << " pipeline(s)" << (acrossTiles ? ", across the persistent tile loop" : "")
                          << "; setmaxnreg " << producerRegisters << "/" << consumerRegisters << "; "
                          << toConsumers.size() << " op(s) before it move to the consumers\n");
  auto split = WarpSpecializeOp::create(b, loc, warps, producerRegisters, consumerRegisters);
  Block *producer = &split.getProducer().emplaceBlock();
  Block *consumers = &split.getConsumers().emplaceBlock();
  consumers->getOperations().splice(consumers->end(), body->getOperations(), Block::iterator(top),
                                    Block::iterator(body->getTerminator()));
  for (Operation *op : llvm::reverse(toConsumers)) op->moveBefore(consumers, consumers->begin());

  // The first global iteration of the tile the tile loop's induction value `o` names.
  auto tiles = dyn_cast<scf::ForOp>(top);
  auto firstOfTile = [&](OpBuilder &at, Value o) -> Value {
    IndexMath mt{at, loc, m.type};
    return mt.mul(mt.iteration(o, tiles.getLowerBound(), tiles.getStep()), trips.front());
  };

  // The producer (each tile's coordinates from the tile loop's slice): iteration G waits for
  // slot G % S to be free, then copies into it.
  b.setInsertionPointToStart(producer);
  IRMapping outside;
  Value g0;
  if (acrossTiles) {
    auto walk = scf::ForOp::create(b, loc, tiles.getLowerBound(), tiles.getUpperBound(), tiles.getStep());
    b.setInsertionPointToStart(walk.getBody());
    outside.map(tiles.getInductionVar(), walk.getInductionVar());
    for (Operation *op : *g.plans.front().tileSlice) b.clone(*op, outside);
    g0 = firstOfTile(b, walk.getInductionVar());
  }
  for (auto [p, base] : llvm::zip(g.plans, bases)) {
    scf::ForOp loop = p.loop;
    OpBuilder::InsertionGuard guard(b);
    auto copies = scf::ForOp::create(b, loc, loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
    b.setInsertionPointToStart(copies.getBody());
    Value gp =
        m.add(g0 ? m.add(g0, base) : base, m.iteration(copies.getInductionVar(), loop.getLowerBound(), loop.getStep()));
    Value slot = ring.slot(m, gp);
    SmallVector<SmallVector<Value>> offsets;
    for (const Candidate &c : p.cands) offsets.push_back(boxOffsetsAt(b, c, loop, copies.getInductionVar(), outside));
    Value always = arith::ConstantIntOp::create(b, loc, 1, 1);
    for (unsigned pipe = 0; pipe < ring.numPipelines(); ++pipe) {
      BarrierWaitOp::create(b, loc, ring.barrierAt(b, loc, ring.empty(pipe), slot), ring.emptyPhase(m, gp));
      ring.issueTma(b, loc, p.cands, offsets, slot, always, pipe);
    }
  }

  // The consumers.
  SmallVector<Value> iterations;
  for (auto [i, p] : llvm::enumerate(g.plans)) {
    Value tileFirst;
    if (acrossTiles) {
      OpBuilder at(p.loop);
      tileFirst = firstOfTile(at, tiles.getInductionVar());
    }
    iterations.push_back(consumeFromRing(p, ring, spans[i], bases[i], trips[i], tileFirst, i + 1 < g.plans.size()));
  }
  // Turns within one program's loops (not across a persistent kernel's tiles), unless a loop
  // asks for none: `next` counts the group's iterations.
  const bool noTurns = llvm::any_of(g.plans, [](const LoopPlan &p) { return p.loop->hasAttr(kNoTurnsAttr); });
  if (warps / 4 >= 2 && !acrossTiles && !noTurns) takeTurnsAtDots(g.plans, iterations, next, warps / 4);
  // Every copy has landed and every producer wait returned (the last consumer wait needed
  // the last copy, issued after the producer's last wait): the rings may go.
  OpBuilder atEnd(split.getContext());
  atEnd.setInsertionPointAfter(acrossTiles ? top : g.plans.back().loop.getOperation());
  if (!acrossTiles && !g.plans.back().inFlight.empty()) {
    // After the last loop's wait for its dots (consumeFromRing put it right after the loop).
    atEnd.setInsertionPointAfter(g.plans.back().loop->getNextNode());
  }
  ring.releaseBarriers(atEnd, loc);
  // The loops that ask for it issue their next iteration's first dot with this one's second
  // (OverlapIterations.cpp), when the ring has the slots for it (stagesToOverlap): with fewer,
  // no copy could run ahead and each iteration would wait for its own.
  for (auto [p, loopSpans] : llvm::zip(g.plans, spans)) {
    if (!p.loop->hasAttr(kOverlapIterationsAttr) || !p.inFlight.empty()) continue;
    if (acrossTiles || stages < stagesToOverlap(loopSpans)) {
      LLVM_DEBUG(llvm::dbgs() << "tile-warp-specialize: iterations not overlapped: " << stages << " stages ("
                              << stagesToOverlap(loopSpans) << " needed) or across tiles\n");
      continue;
    }
    if (failed(overlapIterations(p.loop))) return failure();
  }
  return success();
}

/// The groups of the marked loops (the file comment), in program order.
SmallVector<SmallVector<scf::ForOp>> groupMarkedLoops(ModuleOp module) {
  SmallVector<SmallVector<scf::ForOp>> groups;
  module.walk([&](scf::ForOp loop) {
    if (!loop->hasAttr(kWarpSpecializeAttr)) return;
    if (!groups.empty()) {
      scf::ForOp last = groups.back().back();
      bool adjacent = last->getBlock() == loop->getBlock() && isa<func::FuncOp>(loop->getParentOp());
      for (Operation *op = last->getNextNode(); adjacent && op != loop; op = op ? op->getNextNode() : nullptr)
        adjacent = op && !op->getNumRegions(); // the consumers' work (attention: Q's buffer for the next loop)
      if (adjacent) {
        groups.back().push_back(loop);
        return;
      }
    }
    groups.push_back({loop});
  });
  return groups;
}

struct WarpSpecialize : mlir::tile::impl::TileWarpSpecializeBase<WarpSpecialize> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(requireLayouts(module, getArgument()))) return signalPassFailure();
    if (targetComputeCapability(module) < 80) return; // the pipeliner's copies are sm_80+
    for (SmallVector<scf::ForOp> &loops : groupMarkedLoops(module)) {
      // planLoop records the TMA maps of the descriptors it copies on the module; loops left
      // alone must leave the module as it was, for tile-pipeline to record them in its order.
      DictionaryAttr moduleAttrs = module->getAttrDictionary();
      Group g;
      const char *whyNot = nullptr;
      for (scf::ForOp loop : loops) {
        std::optional<LoopPlan> plan = planLoop(loop, numStages);
        if (!plan) whyNot = "nothing to pipeline";
        else g.plans.push_back(std::move(*plan));
        if (whyNot) break;
      }
      if (!whyNot && g.plans.size() > 1 && g.plans.front().tileSlice) whyNot = "a tile loop's K loop among others";
      if (!whyNot) {
        LoopPlan &first = g.plans.front();
        g.top = first.tileSlice ? first.loop->getParentOp() : first.loop.getOperation();
        whyNot = whyNotWarpSpecialized(g);
      }
      if (!whyNot) {
        if (failed(warpSpecialize(g))) return signalPassFailure();
        continue;
      }
      LLVM_DEBUG(llvm::dbgs() << "tile-warp-specialize: loop(s) at " << loops.front().getLoc()
                              << " left to tile-pipeline: " << whyNot << "\n");
      module->setAttrs(moduleAttrs);
    }
  }
};

} // namespace
