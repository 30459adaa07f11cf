//===- InsertBarriers.cpp - barriers where shared-memory accesses race -----===//
// The state is the set of byte ranges read and written since the last barrier (plus
// the ranges of asynchronous copies not yet retired by a wait, which a barrier does
// not cover: their data lands later). An op conflicting with the state (overlapping
// ranges, a write on either side) gets a barrier before it. Ranges come from the
// offsets tile-allocate-shared assigned: a buffer's whole extent (all stages of a ring:
// which stage an index picks is not tracked), an op's scratch.
// wgmma reads #tile.nvmma_shared buffers through the async proxy: a barrier that follows
// writes to such a buffer gets a proxy fence (tile.fence_async_shared) before it, so each
// writer orders its writes before the barrier publishes them.
// TMA copies (tile.async_tma_load) land on mbarriers that every reader waits on itself: they
// need a barrier only before them (against the slot's earlier readers), never after.
// A TMA store (tile.async_tma_store) reads its buffer after the op: the buffer is free again
// only once thread 0 has waited for the read (tile.async_tma_store_wait) and a barrier has
// followed. The wait goes before the first barrier after the store, wherever that barrier is
// needed (at the latest before the buffer's next write), and before the kernel's end: thread
// 0 does not stall on the copy it just issued.
// A warp-specialised loop (tile.warp_specialize) orders its rings by mbarriers alone: its
// producer region, which one warp runs, may never need a barrier (an error if it would); the
// consumers region continues from the state before the op (its barriers are the consumers',
// never inside a warpgroup's turn).
#include "tile/Analysis/SharedMemory.h"
#include "tile/Transforms/Passes.h"
#include "tile/Transforms/Preconditions.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-insert-barriers"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEINSERTBARRIERS
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct Range {
  int64_t begin, end;
  bool asyncRead = false; ///< an #tile.nvmma_shared buffer: wgmma reads it through the async proxy
  bool overlaps(const Range &o) const { return begin < o.end && o.begin < end; }
};

struct State {
  SmallVector<Range> reads, writes;
  /// Copies in flight: the open group (not yet committed) and committed groups, oldest first.
  SmallVector<Range> openGroup;
  SmallVector<SmallVector<Range>> committed;
  /// Buffers TMA stores may still read: no wait since they were issued.
  SmallVector<Range> storeReads;
  void merge(const State &o) {
    reads.append(o.reads);
    writes.append(o.writes);
    storeReads.append(o.storeReads);
    openGroup.append(o.openGroup);
    // Align the newest groups: a wait(N) must keep the N newest of either path in flight.
    size_t n = std::max(committed.size(), o.committed.size());
    SmallVector<SmallVector<Range>> out(n);
    for (size_t i = 0; i < committed.size(); ++i) out[n - committed.size() + i].append(committed[i]);
    for (size_t i = 0; i < o.committed.size(); ++i) out[n - o.committed.size() + i].append(o.committed[i]);
    committed = std::move(out);
  }
  bool conflicts(ArrayRef<Range> r, ArrayRef<Range> w) const {
    auto any = [](ArrayRef<Range> a, ArrayRef<Range> b) {
      for (const Range &x : a)
        for (const Range &y : b)
          if (x.overlaps(y)) return true;
      return false;
    };
    return any(r, writes) || any(w, writes) || any(w, reads) || any(w, storeReads);
  }
};

/// The bytes of the buffer a memdesc value views (its whole ring).
std::optional<Range> bufferRange(Value v) {
  while (isa_and_present<MemDescIndexOp, MemDescTransOp>(v.getDefiningOp())) v = v.getDefiningOp()->getOperand(0);
  auto alloc = v.getDefiningOp<LocalAllocOp>();
  auto offset = alloc ? alloc->getAttrOfType<IntegerAttr>(kSharedOffsetAttr) : IntegerAttr();
  if (!offset) return std::nullopt;
  MemDescType t = alloc.getType();
  return Range{offset.getInt(), offset.getInt() + int64_t(t.getNumElements() * sharedBytesOf(t.getElementType())),
               isa<NvmmaSharedLayoutAttr>(t.getEncoding())};
}

struct InsertBarriers : mlir::tile::impl::TileInsertBarriersBase<InsertBarriers> {
  bool failed = false;
  bool inProducer = false;   ///< walking a tile.warp_specialize op's producer region
  unsigned barriersSeen = 0; ///< barrierBefore's calls, inserting or not

  void runOnOperation() override {
    if (mlir::failed(requireLayouts(getOperation(), getArgument()))) return signalPassFailure();
    getOperation().walk([&](func::FuncOp func) {
      if (!func->hasAttr(kKernelAttr)) return;
      State state;
      Block &body = func.getBody().front();
      walkBlock(body, state, /*insert=*/true);
      // Shared memory outlives no program: its last TMA stores must have read it.
      if (!state.storeReads.empty()) {
        OpBuilder b(body.getTerminator());
        AsyncTmaStoreWaitOp::create(b, func.getLoc());
      }
    });
    if (failed) signalPassFailure();
  }

  Range whole(Operation *op, Value v) {
    if (auto r = bufferRange(v)) return *r;
    op->emitOpError("reads or writes a shared-memory buffer without an offset (tile-allocate-shared must run first)");
    failed = true;
    return Range{0, 0};
  }

  /// Where a barrier before `op` goes: before the tile.turn_wait that directly precedes it
  /// (nothing that touches memory between them), else right before `op`. A barrier inside a
  /// turn deadlocks: the warpgroup holding the turn waits there for the others, which wait for
  /// the turn (the one-pass attention backward's dSᵀ, written just before its wgmma's turn).
  static Operation *turnWaitBefore(Operation *op) {
    for (Operation *p = op->getPrevNode(); p; p = p->getPrevNode()) {
      if (isa<TurnWaitOp>(p)) return p;
      if (!isMemoryEffectFree(p)) break;
    }
    return op;
  }

  void barrierBefore(Operation *op, State &state, bool insert) {
    ++barriersSeen;
    if (insert && inProducer) {
      op->emitOpError("in a warp-specialised producer would need a barrier: its warp cannot synchronise with the "
                      "consumers but through mbarriers");
      failed = true;
    } else if (insert) {
      OpBuilder b(turnWaitBefore(op));
      const bool fence = llvm::any_of(state.writes, [](const Range &r) { return r.asyncRead; });
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] barrier"
                              << (fence ? " (after a proxy fence: wgmma reads a write)" : "") << " before "
                              << op->getName() << " at " << op->getLoc() << ": it conflicts with " << state.reads.size()
                              << " read(s), " << state.writes.size() << " write(s) since the last barrier\n");
      // Thread 0 waits for the buffers its TMA stores read before the barrier frees them.
      if (!state.storeReads.empty()) AsyncTmaStoreWaitOp::create(b, op->getLoc());
      if (fence) FenceAsyncSharedOp::create(b, op->getLoc());
      BarrierOp::create(b, op->getLoc());
    }
    state.reads.clear();
    state.writes.clear();
    state.storeReads.clear();
  }

  void visit(Operation *op, State &state, bool insert) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      // Iteration i + 1 starts with what iteration i left: walk once to learn that
      // (inserting nothing), then for real from the merged state.
      State before = state, first = state;
      walkBlock(*loop.getBody(), first, /*insert=*/false);
      State entry = state;
      entry.merge(first);
      walkBlock(*loop.getBody(), entry, insert);
      state = entry; // after the last iteration, or none at all
      state.merge(before);
      return;
    }
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      // A barrier a branch needs before its first access goes before the branch (its
      // condition is a scalar: every thread takes the same path): then every path passes it
      // and none carries the accesses before it on (a TMA store of a staged block, issued
      // only where the block meets the tensor).
      if (!inProducer &&
          (needsBarrierFirst(branch.getThenRegion(), state) || needsBarrierFirst(branch.getElseRegion(), state)))
        barrierBefore(op, state, insert);
      State thenState = state, elseState = state;
      walkBlock(branch.getThenRegion().front(), thenState, insert);
      if (!branch.getElseRegion().empty()) walkBlock(branch.getElseRegion().front(), elseState, insert);
      thenState.merge(elseState);
      state = thenState;
      return;
    }
    if (auto split = dyn_cast<WarpSpecializeOp>(op)) {
      State producer = state;
      inProducer = true;
      walkBlock(split.getProducer().front(), producer, insert);
      inProducer = false;
      walkBlock(split.getConsumers().front(), state, insert);
      state.merge(producer);
      return;
    }
    if (isa<BarrierOp>(op)) {
      state.reads.clear();
      state.writes.clear();
      return;
    }
    if (isa<AsyncCommitGroupOp>(op)) {
      state.committed.push_back(std::move(state.openGroup));
      state.openGroup.clear();
      return;
    }
    if (auto wait = dyn_cast<AsyncWaitOp>(op)) {
      // All but the `pending` newest groups of this thread's copies have landed (an open,
      // uncommitted group counts as landed too, as cp.async.wait_group treats it: it is
      // not waited for, so it is conservatively kept in flight instead); others' copies
      // need a barrier before they are visible.
      size_t keep = std::min<size_t>(wait.getPending(), state.committed.size());
      size_t landed = state.committed.size() - keep;
      for (size_t i = 0; i < landed; ++i) state.writes.append(state.committed[i]);
      state.committed.erase(state.committed.begin(), state.committed.begin() + landed);
      return;
    }
    if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
      Range w = whole(op, copy.getDst());
      // The copy overwrites bytes other threads may still be reading.
      if (state.conflicts({}, {w})) barrierBefore(op, state, insert);
      state.openGroup.push_back(w);
      return;
    }
    if (auto copy = dyn_cast<AsyncTmaLoadOp>(op)) {
      // Like cp.async, it overwrites bytes other threads may still be reading. Its data is
      // published by the mbarrier each reader waits on, not by a barrier: never a write here.
      Range w = whole(op, copy.getDst());
      if (state.conflicts({}, {w})) barrierBefore(op, state, insert);
      return;
    }
    SmallVector<Range> reads, writes;
    if (isa<InitBarriersOp, InvalidateBarriersOp>(op)) {
      // Thread 0 writes the mbarriers: before their memory serves anything else, a barrier.
      writes.push_back(whole(op, op->getOperand(0)));
    } else if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
      if (alloc.getSrc()) writes.push_back(whole(op, alloc.getResult()));
    } else if (auto store = dyn_cast<LocalStoreOp>(op)) {
      writes.push_back(whole(op, store.getDst()));
    } else if (auto load = dyn_cast<LocalLoadOp>(op)) {
      reads.push_back(whole(op, load.getSrc()));
    } else if (auto store = dyn_cast<AsyncTmaStoreOp>(op)) {
      // The copy engine reads the buffer after the op: every thread's writes must be fenced
      // and published before it; a later write waits for the read (storeReads).
      Range r = whole(op, store.getSrc());
      if (state.conflicts({r}, {})) barrierBefore(op, state, insert);
      state.storeReads.push_back(r);
      return;
    } else if (auto dot = dyn_cast<WarpGroupDotOp>(op)) {
      // Synchronous: the op waits for its wgmmas, so its reads end with it. (A register a
      // reads no shared memory.)
      if (!dot.hasRegisterA()) reads.push_back(whole(op, dot.getA()));
      reads.push_back(whole(op, dot.getB()));
    } else if (unsigned bytes = scratchBytes(op)) {
      // Writes its scratch, fences, reads it back: after the op only the reads remain. (A
      // layout conversion that stays in registers or within warps, LayoutConversion.h, has
      // no scratch: it is no shared-memory access and needs no barrier.)
      auto offset = op->getAttrOfType<IntegerAttr>(kScratchOffsetAttr);
      if (!offset) {
        op->emitOpError("needs scratch shared memory without an offset (tile-allocate-shared must run first)");
        failed = true;
        return;
      }
      Range r{offset.getInt(), offset.getInt() + bytes};
      if (state.conflicts({r}, {r})) barrierBefore(op, state, insert);
      state.reads.clear();
      state.writes.clear();
      state.reads.push_back(r);
      return;
    }
    if (reads.empty() && writes.empty()) return;
    if (state.conflicts(reads, writes)) barrierBefore(op, state, insert);
    state.reads.append(reads);
    state.writes.append(writes);
  }

  /// Whether the first op of `region` that touches memory needs a barrier before it.
  bool needsBarrierFirst(Region &region, const State &state) {
    if (region.empty()) return false;
    for (Operation &op : region.front()) {
      if (isMemoryEffectFree(&op)) continue;
      State probe = state;
      const unsigned before = barriersSeen;
      visit(&op, probe, /*insert=*/false);
      return barriersSeen != before;
    }
    return false;
  }

  void walkBlock(Block &block, State &state, bool insert) {
    for (Operation &op : llvm::make_early_inc_range(block)) visit(&op, state, insert);
  }
};

} // namespace
