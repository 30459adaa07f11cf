//===- Pipeline.cpp - cp.async software pipelining of dot operand loads ----===//
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
// the induction variable advanced, so only loads whose pointers and masks depend on the
// induction variable and on values from outside the loop are pipelined.
// A tile.warpgroup_dot in the loop that accumulates into the loop-carried value and
// reads only the rings keeps one wgmma group in flight (pendings = 1, one
// tile.warpgroup_dot_wait after the loop): iteration j's wgmmas overlap iteration j+1's
// copies. Its ring slot is then read until iteration j + 1 ends, so the copies run
// S - 2 iterations ahead instead of S - 1: the slot refilled in iteration j was read by
// iteration j - 2, which every warpgroup has waited for before the barrier of iteration j.
//
// TMA (sm_90a): a load of a descriptor block (tile.load with a `box`) into an
// #tile.nvmma_shared buffer read only by warpgroup dots is copied by the tensor memory
// accelerator instead: one mbarrier per ring slot, thread 0 announces the slot's bytes
// (tile.barrier_expect) and issues the copies (tile.async_tma_load) for iteration j + A,
// and every thread waits for slot j % S's phase (j / S) & 1 (tile.barrier_wait) before
// reading it. No thread computes an address, and no barrier is needed to publish the data;
// the one before the refill (the slot's last reader) stays. The descriptor's box and
// swizzle are recorded on the module (kTmaParamsAttr) for the launch, which encodes the
// TMA map: one box per descriptor, so a second block shape of the same descriptor stays on
// cp.async. A buffer that rounds its f32 source to tf32 (`round_tf32`, a tf32 wgmma operand)
// moves by TMA only, whose map then rounds (cp.async cannot).
//
// Persistent tile loops: when the K loop is the inner loop of an scf.for over tiles (a
// persistent kernel's `for t = program_id; t < tiles; t += programs`) and all its copies are
// TMA, the rings and mbarriers are set up once before the tile loop and the copies run ahead
// across tiles (pipelineAcrossTiles): iterations are numbered globally for slots and phases,
// the last iterations of one tile's K loop load the next tile's first blocks (its coordinates
// are the tile loop's slice cloned for the next induction value), so the epilogue between
// two K loops overlaps those copies and no tile starts with an empty pipeline. Like every TMA
// copy (and Triton's), these loads are not ordered after the program's own earlier stores.
//
// Warp specialisation: a K loop marked `tile.warp_specialize` whose copies are all TMA and
// whose dots stay in flight, at the kernel's top level after only register work, is split
// (warpSpecialize) into a tile.warp_specialize op. A producer warp (an extra warpgroup, most
// of its registers given to the consumers) runs the loop's trips again issuing only the
// copies: iteration j waits until slot j % S is free (the `empty` ring: one arrival per
// consumer warp), then announces and starts its copies on the `full` ring. The consumer
// warps (the kernel's num_warps, its layouts unchanged) run the loop without copies: wait
// for the slot, wgmma, and once iteration j - 1's wgmmas have retired (the wait that keeps
// one group in flight) free its slot; then the epilogue. No thread of the consumers issues a
// copy or computes a box, and the producer runs up to S - 1 iterations ahead without
// waiting on the consumers' barrier, so the copies keep going while the consumers compute.
// The K loop of a persistent tile loop (tileSlice) splits at the tile loop: the producer
// walks the same tiles (their coordinates from the tile loop's slice), iterations numbered
// globally as in pipelineAcrossTiles, so it loads the next tile's blocks while the consumers
// store a tile; the consumers free a tile's last slot after its final wgmma wait.
#include "../Conversion/SharedAccess.h"
#include "TmaRecord.h"
#include "tile/Transforms/Passes.h"
#include "tile/Transforms/Preconditions.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPIPELINE
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct Candidate {
  LoadOp load;
  LocalAllocOp alloc;
  SmallVector<Operation *> slice; ///< body ops computing the pointers and mask (TMA: the box offsets), in order
  bool tma = false;
};

bool isZero(Value v) {
  if (!v) return true;
  if (auto splat = v.getDefiningOp<SplatOp>()) v = splat.getSrc();
  return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
}

/// The body ops `v` depends on, if they are pure and reach only the induction variable
/// and values defined outside the loop.
bool collectSlice(Value v, scf::ForOp loop, SetVector<Operation *> &slice) {
  if (auto arg = dyn_cast<BlockArgument>(v)) return arg.getOwner() != loop.getBody() || arg == loop.getInductionVar();
  Operation *def = v.getDefiningOp();
  if (!loop->isProperAncestor(def)) return true;
  if (def->getBlock() != loop.getBody() || def->getNumRegions() || !isMemoryEffectFree(def)) return false;
  if (slice.contains(def)) return true;
  for (Value o : def->getOperands())
    if (!collectSlice(o, loop, slice)) return false;
  slice.insert(def);
  return true;
}

/// Whether only warpgroup dots read `buffer`, directly or through a transposed view.
bool readOnlyByWarpGroupDots(Value buffer) {
  for (Operation *user : buffer.getUsers()) {
    if (auto view = dyn_cast<MemDescTransOp>(user)) {
      if (!readOnlyByWarpGroupDots(view.getResult())) return false;
    } else if (!isa<WarpGroupDotOp>(user)) {
      return false;
    }
  }
  return true;
}

/// Whether `c` (a descriptor block read only by warpgroup dots) can be a TMA copy: a rank-2
/// block of a kernel parameter, into a swizzled #tile.nvmma_shared buffer, whose box offsets
/// reach only the induction variable and values from outside the loop.
bool tmaApplies(const Candidate &c, scf::ForOp loop, SetVector<Operation *> &slice) {
  LoadOp load = c.load;
  auto arg = dyn_cast_or_null<BlockArgument>(load.getDesc());
  MemDescType t = const_cast<LocalAllocOp &>(c.alloc).getType();
  auto nvmma = dyn_cast<NvmmaSharedLayoutAttr>(t.getEncoding());
  if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp()) || !nvmma || !nvmma.getSwizzle() || t.getRank() != 2)
    return false;
  if (!readOnlyByWarpGroupDots(const_cast<LocalAllocOp &>(c.alloc).getResult())) return false;
  for (Value off : load.getDescOffsets())
    if (!collectSlice(off, loop, slice)) return false;
  return true;
}

std::optional<Candidate> asCandidate(LocalAllocOp alloc, scf::ForOp loop, bool allowTma = true) {
  auto load = alloc.getSrc() ? alloc.getSrc().getDefiningOp<LoadOp>() : LoadOp();
  if (!load || load->getBlock() != loop.getBody() || alloc->getBlock() != loop.getBody() || !load->hasOneUse())
    return std::nullopt;
  if (!isZero(load.getOther())) return std::nullopt;
  for (Operation *user : alloc->getUsers())
    if (!isa<LocalLoadOp, WarpGroupDotOp, MemDescTransOp>(user) || user->getBlock() != loop.getBody())
      return std::nullopt;
  if (allowTma && load.getDesc() && targetHasWgmma(loop)) {
    Candidate c{load, alloc, {}, true};
    SetVector<Operation *> slice;
    if (tmaApplies(c, loop, slice)) {
      c.slice.assign(slice.begin(), slice.end());
      llvm::sort(c.slice, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
      return c;
    }
  }
  // cp.async cannot round what it copies: a tf32 operand is pipelined by TMA only.
  if (alloc.getRoundTf32()) return std::nullopt;
  auto vec = load->getAttrOfType<IntegerAttr>("tile.vec");
  auto type = dyn_cast<RankedTensorType>(load.getType());
  if (!type) return std::nullopt;
  unsigned bytes = (vec ? vec.getInt() : 1) * type.getElementType().getIntOrFloatBitWidth() / 8;
  if (bytes != 4 && bytes != 8 && bytes != 16) return std::nullopt;
  SetVector<Operation *> slice;
  if (!collectSlice(load.getPtr(), loop, slice) || (load.getMask() && !collectSlice(load.getMask(), loop, slice)))
    return std::nullopt;
  Candidate c{load, alloc, {}};
  c.slice.assign(slice.begin(), slice.end());
  llvm::sort(c.slice, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return c;
}

struct Pipeline : mlir::tile::impl::TilePipelineBase<Pipeline> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(requireLayouts(getOperation(), getArgument()))) return signalPassFailure();
    if (targetComputeCapability(getOperation()) < 80) return; // cp.async is sm_80+
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) pipeline(loop);
  }

  /// The pass option, else the kernel's tile.num_stages, else 0 (the pass chooses).
  int requestedStages(scf::ForOp loop) {
    if (numStages > 0) return numStages;
    auto func = loop->getParentOfType<func::FuncOp>();
    if (auto a = func ? func->getAttrOfType<IntegerAttr>(kNumStagesAttr) : IntegerAttr()) return a.getInt();
    return 0;
  }

  /// Unless requested: 3 stages, or 4 where a wgmma group stays in flight (it holds one
  /// slot, so 4 keep the copies two iterations ahead) and 4 rings of these tiles leave
  /// shared memory for the rest (Hopper has 227 KB per block).
  static int defaultStages(ArrayRef<Candidate> cands, bool wgmmaInFlight) {
    int64_t bytes = 0;
    for (const Candidate &c : cands) {
      MemDescType t = const_cast<LocalAllocOp &>(c.alloc).getType();
      bytes += t.getNumElements() * int64_t(t.getElementType().getIntOrFloatBitWidth() / 8);
    }
    return wgmmaInFlight && 4 * bytes <= 200 * 1024 ? 4 : 3;
  }

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

  /// The box offsets of TMA candidate `c` for the iteration whose induction value is `iv`;
  /// the values from outside the loop the offsets use are taken through `outside` (another
  /// tile's, or themselves where it maps nothing).
  static SmallVector<Value> boxOffsetsAt(OpBuilder &b, const Candidate &c, scf::ForOp loop, Value iv,
                                         const IRMapping &outside) {
    IRMapping map = outside;
    map.map(loop.getInductionVar(), iv);
    for (Operation *op : c.slice) b.clone(*op, map);
    SmallVector<Value> offsets;
    for (Value off : const_cast<LoadOp &>(c.load).getDescOffsets()) offsets.push_back(map.lookupOrDefault(off));
    return offsets;
  }

  /// Where `pred` holds, thread 0 arms mbarrier `slot` of `bars` with the TMA candidates' bytes
  /// and copies their blocks at `offsets` (one list per TMA candidate, in order) into the slot.
  static void issueTma(OpBuilder &b, Location loc, ArrayRef<Candidate> cands, ArrayRef<Value> rings, Value bars,
                       ArrayRef<SmallVector<Value>> offsets, Value slot, Value pred) {
    Value bar = MemDescIndexOp::create(b, loc, barrierType(b.getContext(), 0), bars, slot);
    int64_t bytes = 0;
    for (const Candidate &c : cands)
      if (c.tma) bytes += bufferBytes(const_cast<LocalAllocOp &>(c.alloc).getType());
    BarrierExpectOp::create(b, loc, bar, pred, b.getI32IntegerAttr(bytes));
    const SmallVector<Value> *next = offsets.begin();
    for (auto [c, ring] : llvm::zip(cands, rings))
      if (c.tma)
        AsyncTmaLoadOp::create(b, loc, const_cast<LoadOp &>(c.load).getDesc(), *next++, slotView(b, loc, ring, slot),
                               bar, pred);
  }

  /// The copies of iteration `iv` into ring slot `slot`: cp.async for the pointer candidates
  /// (one commit group), TMA for the others on mbarrier `slot` of `bars`.
  void issueCopies(OpBuilder &b, ArrayRef<Candidate> cands, ArrayRef<Value> rings, Value bars, scf::ForOp loop,
                   Value iv, Value slot) {
    Location loc = loop.getLoc();
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, loop.getUpperBound());
    if (bars) {
      SmallVector<SmallVector<Value>> offsets;
      for (const Candidate &c : cands)
        if (c.tma) offsets.push_back(boxOffsetsAt(b, c, loop, iv, IRMapping()));
      issueTma(b, loc, cands, rings, bars, offsets, slot, inRange);
    }
    if (llvm::none_of(cands, [](const Candidate &c) { return !c.tma; })) return;
    for (auto [c, ring] : llvm::zip(cands, rings)) {
      if (c.tma) continue;
      auto [ptrs, mask] = addressesAt(b, c, loop, iv, inRange);
      auto copy = AsyncCopyOp::create(b, loc, ptrs, slotView(b, loc, ring, slot), mask);
      copy->setAttr("tile.vec", const_cast<LoadOp &>(c.load)->getAttr("tile.vec"));
    }
    AsyncCommitGroupOp::create(b, loc);
  }

  static int64_t bufferBytes(MemDescType t) {
    return t.getNumElements() * int64_t(t.getElementType().getIntOrFloatBitWidth() / 8);
  }

  /// One buffer of a ring.
  static Value slotView(OpBuilder &b, Location loc, Value ring, Value slot) {
    auto ringType = cast<MemDescType>(ring.getType());
    auto one = MemDescType::get(b.getContext(), ringType.getShape().drop_front(), ringType.getElementType(),
                                ringType.getEncoding());
    return MemDescIndexOp::create(b, loc, one, ring, slot);
  }

  /// A ring of `stages` mbarriers (8 bytes each), or one of them (stages == 0).
  static MemDescType barrierType(MLIRContext *ctx, int64_t stages) {
    auto layout = SwizzledSharedLayoutAttr::get(ctx, 1, 1, 1, {1, 0});
    SmallVector<int64_t> shape{1, 1};
    if (stages) shape.insert(shape.begin(), stages);
    return MemDescType::get(ctx, shape, IntegerType::get(ctx, 64), layout);
  }

  /// The warpgroup dots that can stay in flight across iterations: reading only pipelined
  /// buffers, accumulating into a loop-carried value that only the yield uses after them.
  static SmallVector<WarpGroupDotOp> asyncDots(scf::ForOp loop, ArrayRef<Candidate> cands) {
    SmallVector<WarpGroupDotOp> dots;
    auto pipelined = [&](Value v) {
      if (auto view = v.getDefiningOp<MemDescTransOp>()) v = view.getSrc();
      return llvm::any_of(cands, [&](const Candidate &c) { return const_cast<LocalAllocOp &>(c.alloc).getResult() == v; });
    };
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (auto dot : loop.getBody()->getOps<WarpGroupDotOp>()) {
      auto arg = dyn_cast<BlockArgument>(dot.getAcc());
      if (!pipelined(dot.getA()) || !pipelined(dot.getB()) || !arg || arg.getOwner() != loop.getBody() ||
          arg.getArgNumber() == 0 || !arg.hasOneUse() || !dot->hasOneUse() ||
          yield.getOperand(arg.getArgNumber() - 1) != dot.getResult())
        return {}; // all or none: one wait count serves the loop
      dots.push_back(dot);
    }
    return dots;
  }

  /// For a K loop that is the whole inner work of a persistent tile loop (the file comment):
  /// the ops of the enclosing scf.for's body, in order, that compute from its induction
  /// variable the values the candidates' box offsets take from outside `loop` (a tile's
  /// coordinates). nullopt when the loop does not qualify: a copy not by TMA, no enclosing
  /// scf.for, bounds that vary with the tile, or offsets not computable so.
  static std::optional<SmallVector<Operation *>> tileSlice(scf::ForOp loop, ArrayRef<Candidate> cands) {
    auto outer = dyn_cast<scf::ForOp>(loop->getParentOp());
    if (!outer || llvm::any_of(cands, [](const Candidate &c) { return !c.tma; }) ||
        outer.getInductionVar().getType() != loop.getInductionVar().getType() || !knownPositive(loop.getStep()) ||
        !knownPositive(outer.getStep()))
      return std::nullopt;
    for (Value bound : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
      if (!outer.isDefinedOutsideOfLoop(bound)) return std::nullopt;
    SetVector<Operation *> slice;
    auto reach = [&](Value v) {
      return !loop.isDefinedOutsideOfLoop(v) || outer.isDefinedOutsideOfLoop(v) || collectSlice(v, outer, slice);
    };
    for (const Candidate &c : cands) {
      for (Operation *op : c.slice)
        if (!llvm::all_of(op->getOperands(), reach)) return std::nullopt;
      if (!llvm::all_of(const_cast<LoadOp &>(c.load).getDescOffsets(), reach)) return std::nullopt;
    }
    SmallVector<Operation *> ops(slice.begin(), slice.end());
    llvm::sort(ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    return ops;
  }

  /// A step the trip counts and comparisons of pipelineAcrossTiles may take as positive: a
  /// positive constant, or the number of programs (a persistent loop's stride).
  static bool knownPositive(Value step) {
    APInt v;
    if (matchPattern(step, m_ConstantInt(&v))) return v.isStrictlyPositive();
    return step.getDefiningOp<NumProgramsOp>() != nullptr;
  }

  /// One ring of `stages` buffers per candidate, at `b`.
  static SmallVector<Value> createRings(OpBuilder &b, Location loc, ArrayRef<Candidate> cands, int stages) {
    SmallVector<Value> rings;
    for (const Candidate &c : cands) {
      MemDescType one = const_cast<LocalAllocOp &>(c.alloc).getType();
      SmallVector<int64_t> shape{stages};
      shape.append(one.getShape().begin(), one.getShape().end());
      rings.push_back(LocalAllocOp::create(b, loc, MemDescType::get(b.getContext(), shape, one.getElementType(),
                                                                    one.getEncoding()), Value()));
    }
    return rings;
  }

  /// The mbarrier ring of the TMA copies, initialised before any thread waits on it.
  static Value createBarriers(OpBuilder &b, Location loc, int stages) {
    Value bars = LocalAllocOp::create(b, loc, barrierType(b.getContext(), stages), Value());
    InitBarriersOp::create(b, loc, bars);
    BarrierOp::create(b, loc);
    return bars;
  }

  /// The candidates' buffers become slot `slot` of their rings; their loads go.
  static void readFromSlots(OpBuilder &b, Location loc, MutableArrayRef<Candidate> cands, ArrayRef<Value> rings,
                            Value slot) {
    for (auto [c, ring] : llvm::zip(cands, rings)) {
      Value view = MemDescIndexOp::create(b, loc, c.alloc.getType(), ring, slot);
      c.alloc.replaceAllUsesWith(view);
      c.alloc.erase();
      c.load.erase();
    }
  }

  /// After `loop`: the dots' last groups complete before anything reads the loop's results.
  static void waitForDots(OpBuilder &b, Location loc, scf::ForOp loop, ArrayRef<WarpGroupDotOp> inFlight) {
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

  void pipeline(scf::ForOp loop) {
    const int requested = requestedStages(loop);
    if (requested == 1) return;
    SmallVector<Candidate> cands;
    for (auto alloc : loop.getBody()->getOps<LocalAllocOp>())
      if (auto c = asCandidate(alloc, loop)) cands.push_back(*c);
    if (cands.empty()) return;
    auto module = loop->getParentOfType<ModuleOp>();
    for (Candidate &c : cands)
      if (c.tma && !recordTma(module, cast<BlockArgument>(c.load.getDesc()), c.alloc.getType(), c.alloc.getRoundTf32())) {
        // Another box of the same descriptor: pointers and cp.async after all (if they can).
        std::optional<Candidate> ptrs = asCandidate(c.alloc, loop, /*allowTma=*/false);
        if (!ptrs) return;
        c = *ptrs;
      }
    const bool anyTma = llvm::any_of(cands, [](const Candidate &c) { return c.tma; });
    const bool anyCpAsync = llvm::any_of(cands, [](const Candidate &c) { return !c.tma; });
    SmallVector<WarpGroupDotOp> inFlight = asyncDots(loop, cands);
    const int stages = requested ? requested : defaultStages(cands, !inFlight.empty());
    // One wgmma group in flight needs a third slot; with two stages the dots wait.
    if (stages < 3) inFlight.clear();
    const int ahead = stages - 1 - (inFlight.empty() ? 0 : 1);
    std::optional<SmallVector<Operation *>> tile = tileSlice(loop, cands);
    if (canWarpSpecialize(loop, cands, inFlight, tile.has_value()))
      return warpSpecialize(loop, cands, inFlight, stages, std::move(tile));
    if (tile) return pipelineAcrossTiles(loop, *tile, cands, inFlight, stages, ahead);

    Location loc = loop.getLoc();
    Type it = loop.getInductionVar().getType();
    auto cst = [&](OpBuilder &b, int64_t v) { return arith::ConstantOp::create(b, loc, b.getIntegerAttr(it, v)); };
    auto i32 = [&](OpBuilder &b, Value v) { return toI32(b, loc, v); };

    // The rings and the prologue.
    OpBuilder b(loop);
    SmallVector<Value> rings = createRings(b, loc, cands, stages);
    Value bars = anyTma ? createBarriers(b, loc, stages) : Value();
    for (int i = 0; i < ahead; ++i) {
      Value iv = arith::AddIOp::create(b, loc, loop.getLowerBound(),
                                       arith::MulIOp::create(b, loc, loop.getStep(), cst(b, i)));
      issueCopies(b, cands, rings, bars, loop, iv, arith::ConstantIntOp::create(b, loc, i, 32));
    }

    // Each iteration: wait for its stage, refill the oldest slot, read its stage.
    b.setInsertionPointToStart(loop.getBody());
    if (anyCpAsync) AsyncWaitOp::create(b, loc, b.getI32IntegerAttr(ahead - 1));
    Value iv = loop.getInductionVar();
    Value j = arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()), loop.getStep());
    if (anyTma) waitForStage(b, loc, bars, j, stages);
    Value ivAhead = arith::AddIOp::create(b, loc, iv, arith::MulIOp::create(b, loc, loop.getStep(), cst(b, ahead)));
    Value jAhead = arith::AddIOp::create(b, loc, j, cst(b, ahead));
    Value refill = i32(b, arith::RemUIOp::create(b, loc, jAhead, cst(b, stages)));
    issueCopies(b, cands, rings, bars, loop, ivAhead, refill);
    readFromSlots(b, loc, cands, rings, i32(b, arith::RemUIOp::create(b, loc, j, cst(b, stages))));

    // No copy may still be landing in the rings when their space is reused (TMA copies past
    // the end are never issued).
    b.setInsertionPointAfter(loop);
    if (anyCpAsync) AsyncWaitOp::create(b, loc, b.getI32IntegerAttr(0));
    waitForDots(b, loc, loop, inFlight);

    // No thread may still wait on an mbarrier when it is invalidated. After the dots' wait:
    // tile-insert-barriers forgets what a barrier retires, and the wgmmas in flight until that
    // wait still read the rings that later scratch may reuse.
    if (anyTma) {
      BarrierOp::create(b, loc);
      InvalidateBarriersOp::create(b, loc, bars);
    }
  }

  /// The loop a warp-specialised `loop` splits the kernel at: itself, or the persistent tile
  /// loop around it (`tile`: tileSlice's ops, when the K loop is one's).
  static scf::ForOp splitPoint(scf::ForOp loop, bool tile) {
    return tile ? cast<scf::ForOp>(loop->getParentOp()) : loop;
  }

  /// Whether `loop` runs warp-specialised (the file comment): asked for, its copies all TMA, its
  /// dots in flight; it (or the tile loop around it, without carried values) in the kernel's
  /// body after only register work (which every warp repeats: no memory access, no
  /// shared-memory scratch); whole consumer warpgroups.
  static bool canWarpSpecialize(scf::ForOp loop, ArrayRef<Candidate> cands, ArrayRef<WarpGroupDotOp> inFlight,
                                bool tile) {
    if (!loop->hasAttr(kWarpSpecializeAttr) || inFlight.empty() ||
        llvm::any_of(cands, [](const Candidate &c) { return !c.tma; }))
      return false;
    scf::ForOp top = splitPoint(loop, tile);
    auto func = dyn_cast<func::FuncOp>(top->getParentOp());
    auto warps = func ? func->getAttrOfType<IntegerAttr>(kNumWarpsAttr) : IntegerAttr();
    if (!func || !func->hasAttr(kKernelAttr) || !warps || warps.getInt() % 4 || warps.getInt() + 4 > 32 ||
        (tile && top.getNumResults()))
      return false;
    for (Operation *op = &top->getBlock()->front(); op != top; op = op->getNextNode())
      if (op->getNumRegions() || !isMemoryEffectFree(op) || scratchBytes(op)) return false;
    return top->getBlock()->getTerminator()->getNumOperands() == 0;
  }

  /// setmaxnreg's counts (producer, consumers) for `warps` consumer warps beside the producer
  /// warpgroup: the producer keeps 40 registers and the consumers share the rest of the 64K
  /// (232 each for two warpgroups, as CUTLASS's). (0, 0), unchanged, where the launch's even
  /// share already gives every thread the most it can hold (255).
  static std::pair<int, int> registerSplit(int warps) {
    constexpr int kRegisters = 65536, kProducer = 40;
    if (kRegisters / (32 * (warps + 4)) >= 255) return {0, 0};
    return {kProducer, std::min(256, (kRegisters - 128 * kProducer) / (32 * warps) / 8 * 8)};
  }

  /// The loop, its copies all TMA, split into a producer warp and the consumers (the file
  /// comment): tile.warp_specialize, its consumers region the loop (or the persistent tile loop
  /// around it: `tile`, tileSlice's ops) and the rest of the kernel. Iterations are numbered
  /// globally across tiles for the slots and phases, G = (tiles before) x trips + j, as in
  /// pipelineAcrossTiles: the producer runs into the next tile's blocks while the consumers
  /// finish a tile and store it.
  void warpSpecialize(scf::ForOp loop, MutableArrayRef<Candidate> cands, ArrayRef<WarpGroupDotOp> inFlight,
                      int stages, std::optional<SmallVector<Operation *>> tile) {
    scf::ForOp top = splitPoint(loop, tile.has_value());
    auto func = cast<func::FuncOp>(top->getParentOp());
    const int warps = int(func->getAttrOfType<IntegerAttr>(kNumWarpsAttr).getInt());
    MLIRContext *ctx = loop.getContext();
    Location loc = loop.getLoc();
    Type it = loop.getInductionVar().getType();
    const Value lb = loop.getLowerBound(), step = loop.getStep();
    auto cst = [&](OpBuilder &b, int64_t v) -> Value { return arith::ConstantOp::create(b, loc, b.getIntegerAttr(it, v)); };
    auto add = [&](OpBuilder &b, Value x, Value y) -> Value { return arith::AddIOp::create(b, loc, x, y); };
    auto iteration = [&](OpBuilder &b, Value iv, Value from, Value by) -> Value {
      return arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, iv, from), by);
    };
    auto slotOf = [&](OpBuilder &b, Value g) { return toI32(b, loc, arith::RemUIOp::create(b, loc, g, cst(b, stages))); };
    auto barrier = [&](OpBuilder &b, Value ring, Value slot) {
      return MemDescIndexOp::create(b, loc, barrierType(ctx, 0), ring, slot);
    };

    // Rings, both mbarrier rings and the K loop's trip count, while every warp is still here.
    OpBuilder b(top);
    SmallVector<Value> rings = createRings(b, loc, cands, stages);
    Value full = LocalAllocOp::create(b, loc, barrierType(ctx, stages), Value());
    Value empty = LocalAllocOp::create(b, loc, barrierType(ctx, stages), Value());
    InitBarriersOp::create(b, loc, full, 1);
    InitBarriersOp::create(b, loc, empty, warps);
    BarrierOp::create(b, loc);
    Value trips = tripCount(b, loc, loop);
    auto [producerRegisters, consumerRegisters] = registerSplit(warps);
    auto split = WarpSpecializeOp::create(b, loc, warps, producerRegisters, consumerRegisters);
    Block *producer = &split.getProducer().emplaceBlock();
    Block *consumers = &split.getConsumers().emplaceBlock();
    Block *body = top->getBlock();
    consumers->getOperations().splice(consumers->end(), body->getOperations(), Block::iterator(top),
                                      Block::iterator(body->getTerminator()));

    // The first global iteration of the tile the tile loop's induction value `o` names (0
    // without a tile loop).
    auto firstOfTile = [&](OpBuilder &b, Value o) -> Value {
      if (!tile) return cst(b, 0);
      return arith::MulIOp::create(b, loc, iteration(b, o, top.getLowerBound(), top.getStep()), trips);
    };

    // The producer (each tile's coordinates from the tile loop's slice): iteration G waits for
    // slot G % S to be free (phase (G / S - 1) & 1 of its `empty` barrier; parity 1 returns at
    // once on a fresh barrier, so the first S pass), then copies into it.
    b.setInsertionPointToStart(producer);
    IRMapping outside;
    Value g0 = cst(b, 0);
    if (tile) {
      auto tiles = scf::ForOp::create(b, loc, top.getLowerBound(), top.getUpperBound(), top.getStep());
      b.setInsertionPointToStart(tiles.getBody());
      outside.map(top.getInductionVar(), tiles.getInductionVar());
      for (Operation *op : *tile) b.clone(*op, outside);
      g0 = firstOfTile(b, tiles.getInductionVar());
    }
    auto copies = scf::ForOp::create(b, loc, lb, loop.getUpperBound(), step);
    b.setInsertionPointToStart(copies.getBody());
    Value g = add(b, g0, iteration(b, copies.getInductionVar(), lb, step));
    Value slot = slotOf(b, g);
    Value one = cst(b, 1);
    Value parity = toI32(b, loc, arith::XOrIOp::create(b, loc, arith::AndIOp::create(b, loc,
                                                          arith::DivUIOp::create(b, loc, g, cst(b, stages)), one), one));
    BarrierWaitOp::create(b, loc, barrier(b, empty, slot), parity);
    SmallVector<SmallVector<Value>> offsets;
    for (const Candidate &c : cands) offsets.push_back(boxOffsetsAt(b, c, loop, copies.getInductionVar(), outside));
    issueTma(b, loc, cands, rings, full, offsets, slot, arith::ConstantIntOp::create(b, loc, 1, 1));

    // The consumers: wait for the slot, read it; after the iteration's dots (which retire the
    // previous iteration's) each warp frees the previous iteration's slot, and in a tile loop
    // after the loop's last wait the last one's, for the next tile's copies. (Without a tile
    // loop no copy waits for that slot: no arrival, whose branch on the trip count would also
    // lead LLVM to split the accumulators' paths around the loop, which makes ptxas serialise
    // the wgmmas, C7515.)
    b.setInsertionPoint(loop);
    Value first = firstOfTile(b, tile ? top.getInductionVar() : Value());
    b.setInsertionPointToStart(loop.getBody());
    Value j = iteration(b, loop.getInductionVar(), lb, step);
    Value gc = add(b, first, j);
    waitForStage(b, loc, full, gc, stages);
    readFromSlots(b, loc, cands, rings, slotOf(b, gc));
    b.setInsertionPoint(loop.getBody()->getTerminator());
    BarrierArriveOp::create(b, loc, barrier(b, empty, slotOf(b, add(b, gc, cst(b, stages - 1)))),
                            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, j, cst(b, 0)));
    b.setInsertionPointAfter(loop);
    waitForDots(b, loc, loop, inFlight);
    if (tile)
      BarrierArriveOp::create(b, loc, barrier(b, empty, slotOf(b, add(b, first, add(b, trips, cst(b, -1))))),
                              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, trips, cst(b, 0)));
    // Every copy has landed and every producer wait returned (the last consumer wait needed
    // the last copy, issued after the producer's last wait): the rings may go (pipeline()).
    if (tile) b.setInsertionPointAfter(top);
    BarrierOp::create(b, loc);
    InvalidateBarriersOp::create(b, loc, full);
    InvalidateBarriersOp::create(b, loc, empty);
  }

  static Value toI32(OpBuilder &b, Location loc, Value v) {
    Type t = v.getType();
    if (t.isInteger(32)) return v;
    if (t.isIndex()) return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
    return arith::TruncIOp::create(b, loc, b.getI32Type(), v);
  }

  /// `loop`'s trip count, at `b` (its bounds must be defined there).
  static Value tripCount(OpBuilder &b, Location loc, scf::ForOp loop) {
    Type it = loop.getInductionVar().getType();
    auto cst = [&](int64_t v) -> Value { return arith::ConstantOp::create(b, loc, b.getIntegerAttr(it, v)); };
    const Value lb = loop.getLowerBound(), step = loop.getStep();
    Value span = arith::MaxSIOp::create(b, loc, arith::SubIOp::create(b, loc, loop.getUpperBound(), lb), cst(0));
    return arith::DivUIOp::create(b, loc, arith::AddIOp::create(b, loc, span, arith::SubIOp::create(b, loc, step, cst(1))),
                                  step);
  }

  /// Every thread waits for the copies of global iteration `g`: slot g % S completes its
  /// (g / S)-th phase with them.
  static void waitForStage(OpBuilder &b, Location loc, Value bars, Value g, int stages) {
    Type it = g.getType();
    Value s = arith::ConstantOp::create(b, loc, b.getIntegerAttr(it, stages));
    Value slot = toI32(b, loc, arith::RemUIOp::create(b, loc, g, s));
    Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(it, 1));
    Value phase = toI32(b, loc, arith::AndIOp::create(b, loc, arith::DivUIOp::create(b, loc, g, s), one));
    BarrierWaitOp::create(b, loc, MemDescIndexOp::create(b, loc, barrierType(b.getContext(), 0), bars, slot), phase);
  }

  /// The K loop of a persistent tile loop (`outer`), its copies all TMA: the rings and
  /// mbarriers live across tiles, and the copies run ahead across them. Iterations are numbered
  /// globally, G = (tiles before this one) x trips + j, for the slots and phases. At a tile's
  /// start it issues what the previous tile did not already (all `ahead` first iterations for
  /// a program's first tile, or when the K loop is shorter than `ahead`); iteration j refills
  /// for iteration j + ahead of this tile, or past its end iteration j + ahead - trips of the
  /// next tile (coordinates from `tile`, the outer slice, cloned for the next induction value).
  void pipelineAcrossTiles(scf::ForOp loop, ArrayRef<Operation *> tile, MutableArrayRef<Candidate> cands,
                           ArrayRef<WarpGroupDotOp> inFlight, int stages, int ahead) {
    auto outer = cast<scf::ForOp>(loop->getParentOp());
    Location loc = loop.getLoc();
    Type it = loop.getInductionVar().getType();
    auto cst = [&](OpBuilder &b, int64_t v) -> Value { return arith::ConstantOp::create(b, loc, b.getIntegerAttr(it, v)); };
    auto add = [&](OpBuilder &b, Value x, Value y) -> Value { return arith::AddIOp::create(b, loc, x, y); };
    auto mul = [&](OpBuilder &b, Value x, Value y) -> Value { return arith::MulIOp::create(b, loc, x, y); };
    auto cmp = [&](OpBuilder &b, arith::CmpIPredicate p, Value x, Value y) -> Value {
      return arith::CmpIOp::create(b, loc, p, x, y);
    };
    using P = arith::CmpIPredicate;
    const Value lb = loop.getLowerBound(), step = loop.getStep();

    // Before the tile loop: rings, mbarriers and the K loop's trip count.
    OpBuilder b(outer);
    SmallVector<Value> rings = createRings(b, loc, cands, stages);
    Value bars = createBarriers(b, loc, stages);
    Value trips = tripCount(b, loc, loop);

    // At the tile's start: its global first iteration, the next tile's coordinates, the
    // iterations the previous tile did not issue.
    b.setInsertionPoint(loop);
    const Value o = outer.getInductionVar();
    Value tileIndex = arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, o, outer.getLowerBound()),
                                             outer.getStep());
    Value g = mul(b, tileIndex, trips);
    Value hasPrev = cmp(b, P::sgt, o, outer.getLowerBound());
    Value nextO = add(b, o, outer.getStep());
    Value hasNext = cmp(b, P::slt, nextO, outer.getUpperBound());
    IRMapping nextTile;
    nextTile.map(o, nextO);
    for (Operation *op : tile) b.clone(*op, nextTile);
    Value unissued = arith::SubIOp::create(b, loc, cst(b, ahead), trips); // first iterations no earlier tile issued
    auto offsetsAt = [&](Value iv, const IRMapping &outside) {
      SmallVector<SmallVector<Value>> offsets;
      for (const Candidate &c : cands) offsets.push_back(boxOffsetsAt(b, c, loop, iv, outside));
      return offsets;
    };
    for (int d = 0; d < ahead; ++d) {
      Value pred = arith::AndIOp::create(
          b, loc, cmp(b, P::slt, cst(b, d), trips),
          arith::OrIOp::create(b, loc, arith::XOrIOp::create(b, loc, hasPrev, arith::ConstantIntOp::create(b, loc, 1, 1)),
                               cmp(b, P::slt, cst(b, d), unissued)));
      Value slot = toI32(b, loc, arith::RemUIOp::create(b, loc, add(b, g, cst(b, d)), cst(b, stages)));
      issueTma(b, loc, cands, rings, bars, offsetsAt(add(b, lb, mul(b, step, cst(b, d))), IRMapping()), slot, pred);
    }

    // Each iteration: wait for its stage, refill `ahead` iterations on (this tile or the
    // next), read its stage.
    b.setInsertionPointToStart(loop.getBody());
    Value j = arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, loop.getInductionVar(), lb), step);
    Value G = add(b, g, j);
    waitForStage(b, loc, bars, G, stages);
    Value d = add(b, j, cst(b, ahead)), e = arith::SubIOp::create(b, loc, d, trips);
    Value inThisTile = cmp(b, P::slt, d, trips);
    SmallVector<SmallVector<Value>> here = offsetsAt(add(b, lb, mul(b, step, d)), IRMapping());
    SmallVector<SmallVector<Value>> next = offsetsAt(add(b, lb, mul(b, step, e)), nextTile);
    for (auto [h, n] : llvm::zip(here, next))
      for (auto [x, y] : llvm::zip(h, n)) x = arith::SelectOp::create(b, loc, inThisTile, x, y);
    Value pred = arith::OrIOp::create(b, loc, inThisTile,
                                      arith::AndIOp::create(b, loc, cmp(b, P::slt, e, trips), hasNext));
    issueTma(b, loc, cands, rings, bars, here, toI32(b, loc, arith::RemUIOp::create(b, loc, add(b, G, cst(b, ahead)),
                                                                                    cst(b, stages))),
             pred);
    readFromSlots(b, loc, cands, rings, toI32(b, loc, arith::RemUIOp::create(b, loc, G, cst(b, stages))));

    b.setInsertionPointAfter(loop);
    waitForDots(b, loc, loop, inFlight);
    // After the last tile (see pipeline()).
    b.setInsertionPointAfter(outer);
    BarrierOp::create(b, loc);
    InvalidateBarriersOp::create(b, loc, bars);
  }
};

} // namespace
