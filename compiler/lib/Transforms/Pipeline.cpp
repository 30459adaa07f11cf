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
#include "tile/Transforms/Passes.h"

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
  SmallVector<Operation *> slice; ///< body ops computing the pointers and mask, in order
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

std::optional<Candidate> asCandidate(LocalAllocOp alloc, scf::ForOp loop) {
  auto load = alloc.getSrc() ? alloc.getSrc().getDefiningOp<LoadOp>() : LoadOp();
  if (!load || load->getBlock() != loop.getBody() || alloc->getBlock() != loop.getBody() || !load->hasOneUse())
    return std::nullopt;
  if (!isZero(load.getOther())) return std::nullopt;
  for (Operation *user : alloc->getUsers())
    if (!isa<LocalLoadOp, WarpGroupDotOp>(user) || user->getBlock() != loop.getBody()) return std::nullopt;
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

  void issueCopies(OpBuilder &b, ArrayRef<Candidate> cands, ArrayRef<Value> rings, scf::ForOp loop, Value iv,
                   Value slot) {
    Location loc = loop.getLoc();
    Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, loop.getUpperBound());
    for (auto [c, ring] : llvm::zip(cands, rings)) {
      auto [ptrs, mask] = addressesAt(b, c, loop, iv, inRange);
      auto ringType = cast<MemDescType>(ring.getType());
      auto one = MemDescType::get(b.getContext(), ringType.getShape().drop_front(), ringType.getElementType(),
                                  ringType.getEncoding());
      Value view = MemDescIndexOp::create(b, loc, one, ring, slot);
      auto copy = AsyncCopyOp::create(b, loc, ptrs, view, mask);
      copy->setAttr("tile.vec", const_cast<LoadOp &>(c.load)->getAttr("tile.vec"));
    }
    AsyncCommitGroupOp::create(b, loc);
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
    for (int i = 0; i < ahead; ++i) {
      Value iv = arith::AddIOp::create(b, loc, loop.getLowerBound(),
                                       arith::MulIOp::create(b, loc, loop.getStep(), cst(b, i)));
      issueCopies(b, cands, rings, loop, iv, arith::ConstantIntOp::create(b, loc, i, 32));
    }

    // Each iteration: wait for its stage, refill the oldest slot, read its stage.
    b.setInsertionPointToStart(loop.getBody());
    AsyncWaitOp::create(b, loc, b.getI32IntegerAttr(ahead - 1));
    Value iv = loop.getInductionVar();
    Value j = arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()), loop.getStep());
    Value ivAhead = arith::AddIOp::create(b, loc, iv, arith::MulIOp::create(b, loc, loop.getStep(), cst(b, ahead)));
    Value jAhead = arith::AddIOp::create(b, loc, j, cst(b, ahead));
    Value refill = i32(b, arith::RemUIOp::create(b, loc, jAhead, cst(b, stages)));
    issueCopies(b, cands, rings, loop, ivAhead, refill);
    Value slot = i32(b, arith::RemUIOp::create(b, loc, j, cst(b, stages)));
    for (auto [c, ring] : llvm::zip(cands, rings)) {
      Value view = MemDescIndexOp::create(b, loc, c.alloc.getType(), ring, slot);
      c.alloc.replaceAllUsesWith(view);
      c.alloc.erase();
      c.load.erase();
    }

    // No copy may still be landing in the rings when their space is reused.
    b.setInsertionPointAfter(loop);
    AsyncWaitOp::create(b, loc, b.getI32IntegerAttr(0));

    // The dots' last groups complete before anything reads the loop's results.
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
  }
};

} // namespace
