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
// cp.async.
#include "tile/Transforms/Passes.h"

#include "tile/Layout/SharedLayouts.h"
#include "tile/runtime/CompiledKernel.h"

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

/// The TMA box of `alloc`'s buffer as the launch encodes it: rows (at most TMA's 256) by the
/// swizzle's width, outermost first.
SmallVector<int32_t, 2> tmaBox(MemDescType t) {
  auto nvmma = cast<NvmmaSharedLayoutAttr>(t.getEncoding());
  const int64_t elemBytes = t.getElementType().getIntOrFloatBitWidth() / 8;
  return {int32_t(std::min<int64_t>(t.getShape()[0], ::tile::layout::kMaxTmaBoxRows)),
          int32_t(nvmma.getSwizzle() / elemBytes)};
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
  for (Operation *user : const_cast<LocalAllocOp &>(c.alloc)->getUsers())
    if (!isa<WarpGroupDotOp>(user)) return false;
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
    if (!isa<LocalLoadOp, WarpGroupDotOp>(user) || user->getBlock() != loop.getBody()) return std::nullopt;
  if (allowTma && load.getDesc() && targetHasWgmma(loop)) {
    Candidate c{load, alloc, {}, true};
    SetVector<Operation *> slice;
    if (tmaApplies(c, loop, slice)) {
      c.slice.assign(slice.begin(), slice.end());
      llvm::sort(c.slice, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
      return c;
    }
  }
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

  /// The copies of iteration `iv` into ring slot `slot`: cp.async for the pointer candidates
  /// (one commit group), TMA for the others on mbarrier `slot` of `bars`.
  void issueCopies(OpBuilder &b, ArrayRef<Candidate> cands, ArrayRef<Value> rings, Value bars, scf::ForOp loop,
                   Value iv, Value slot) {
    Location loc = loop.getLoc();
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, loop.getUpperBound());
    if (bars) {
      Value bar = MemDescIndexOp::create(b, loc, barrierType(b.getContext(), 0), bars, slot);
      int64_t bytes = 0;
      for (const Candidate &c : cands)
        if (c.tma) bytes += bufferBytes(const_cast<LocalAllocOp &>(c.alloc).getType());
      BarrierExpectOp::create(b, loc, bar, inRange, b.getI32IntegerAttr(bytes));
      for (auto [c, ring] : llvm::zip(cands, rings)) {
        if (!c.tma) continue;
        IRMapping map;
        map.map(loop.getInductionVar(), iv);
        for (Operation *op : c.slice) b.clone(*op, map);
        SmallVector<Value> coords;
        for (Value off : const_cast<LoadOp &>(c.load).getDescOffsets()) coords.push_back(map.lookupOrDefault(off));
        AsyncTmaLoadOp::create(b, loc, const_cast<LoadOp &>(c.load).getDesc(), coords, slotView(b, loc, ring, slot),
                               bar, inRange);
      }
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

  /// Records on the module that launches must encode a TMA map for descriptor parameter `arg`
  /// with `c`'s box; false when the parameter already has another box (then `c` stays on cp.async).
  static bool recordTma(ModuleOp module, BlockArgument arg, const Candidate &c) {
    MemDescType t = const_cast<LocalAllocOp &>(c.alloc).getType();
    Type elem = t.getElementType();
    SmallVector<int32_t, 2> box = tmaBox(t);
    SmallVector<int32_t> entry{int32_t(arg.getArgNumber()), int32_t(elem.getIntOrFloatBitWidth() / 8),
                               int32_t(isa<FloatType>(elem)), int32_t(elem.isBF16()),
                               int32_t(cast<NvmmaSharedLayoutAttr>(t.getEncoding()).getSwizzle()), 2, box[0], box[1]};
    SmallVector<Attribute> params;
    if (auto old = module->getAttrOfType<ArrayAttr>(kTmaParamsAttr)) params.assign(old.begin(), old.end());
    for (Attribute a : params) {
      auto have = cast<DenseI32ArrayAttr>(a).asArrayRef();
      if (have[0] == entry[0]) return have == ArrayRef<int32_t>(entry);
    }
    if (params.size() == size_t(::tile::rt::kMaxTmaParams)) return false;
    params.push_back(DenseI32ArrayAttr::get(module.getContext(), entry));
    module->setAttr(kTmaParamsAttr, ArrayAttr::get(module.getContext(), params));
    return true;
  }

  /// The warpgroup dots that can stay in flight across iterations: reading only pipelined
  /// buffers, accumulating into a loop-carried value that only the yield uses after them.
  static SmallVector<WarpGroupDotOp> asyncDots(scf::ForOp loop, ArrayRef<Candidate> cands) {
    SmallVector<WarpGroupDotOp> dots;
    auto pipelined = [&](Value v) {
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

  void pipeline(scf::ForOp loop) {
    const int requested = requestedStages(loop);
    if (requested == 1) return;
    SmallVector<Candidate> cands;
    for (auto alloc : loop.getBody()->getOps<LocalAllocOp>())
      if (auto c = asCandidate(alloc, loop)) cands.push_back(*c);
    if (cands.empty()) return;
    auto module = loop->getParentOfType<ModuleOp>();
    for (Candidate &c : cands)
      if (c.tma && !recordTma(module, cast<BlockArgument>(c.load.getDesc()), c)) {
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

    Location loc = loop.getLoc();
    Type it = loop.getInductionVar().getType();
    auto cst = [&](OpBuilder &b, int64_t v) { return arith::ConstantOp::create(b, loc, b.getIntegerAttr(it, v)); };
    auto i32 = [&](OpBuilder &b, Value v) -> Value {
      if (it.isInteger(32)) return v;
      if (it.isIndex()) return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
      return arith::TruncIOp::create(b, loc, b.getI32Type(), v);
    };

    // The rings and the prologue.
    OpBuilder b(loop);
    SmallVector<Value> rings;
    for (Candidate &c : cands) {
      MemDescType one = c.alloc.getType();
      SmallVector<int64_t> shape{stages};
      shape.append(one.getShape().begin(), one.getShape().end());
      rings.push_back(LocalAllocOp::create(b, loc, MemDescType::get(b.getContext(), shape, one.getElementType(),
                                                                    one.getEncoding()), Value()));
    }
    Value bars;
    if (anyTma) {
      bars = LocalAllocOp::create(b, loc, barrierType(b.getContext(), stages), Value());
      InitBarriersOp::create(b, loc, bars);
      BarrierOp::create(b, loc); // initialised before any thread waits on them
    }
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
    if (anyTma) {
      // Slot j % S completes its (j / S)-th phase with iteration j's copies.
      Value slot = i32(b, arith::RemUIOp::create(b, loc, j, cst(b, stages)));
      Value phase = i32(b, arith::AndIOp::create(b, loc, arith::DivUIOp::create(b, loc, j, cst(b, stages)), cst(b, 1)));
      BarrierWaitOp::create(b, loc, MemDescIndexOp::create(b, loc, barrierType(b.getContext(), 0), bars, slot), phase);
    }
    Value ivAhead = arith::AddIOp::create(b, loc, iv, arith::MulIOp::create(b, loc, loop.getStep(), cst(b, ahead)));
    Value jAhead = arith::AddIOp::create(b, loc, j, cst(b, ahead));
    Value refill = i32(b, arith::RemUIOp::create(b, loc, jAhead, cst(b, stages)));
    issueCopies(b, cands, rings, bars, loop, ivAhead, refill);
    Value slot = i32(b, arith::RemUIOp::create(b, loc, j, cst(b, stages)));
    for (auto [c, ring] : llvm::zip(cands, rings)) {
      Value view = MemDescIndexOp::create(b, loc, c.alloc.getType(), ring, slot);
      c.alloc.replaceAllUsesWith(view);
      c.alloc.erase();
      c.load.erase();
    }

    // No copy may still be landing in the rings when their space is reused (TMA copies past
    // the end are never issued).
    b.setInsertionPointAfter(loop);
    if (anyCpAsync) AsyncWaitOp::create(b, loc, b.getI32IntegerAttr(0));

    // The dots' last groups complete before anything reads the loop's results.
    if (!inFlight.empty()) {
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

    // No thread may still wait on an mbarrier when it is invalidated. After the dots' wait:
    // tile-insert-barriers forgets what a barrier retires, and the wgmmas in flight until that
    // wait still read the rings that later scratch may reuse.
    if (anyTma) {
      BarrierOp::create(b, loc);
      InvalidateBarriersOp::create(b, loc, bars);
    }
  }
};

} // namespace
