//===- Candidates.cpp - the pipeliner's schedule: which loads, how far ahead ===//
// A load is pipelined when it only stages a tile for dots (tile.load -> tile.local_alloc,
// read by local loads, warpgroup dots or transposed views in the loop body), its `other` is
// zero (a copy past the end zero-fills) and its addresses and mask (TMA: box offsets) depend
// on the induction variable and on values from outside the loop only: the schedules clone
// that computation with the induction variable advanced.
//
// TMA (sm_90a): a load of a descriptor block (tile.load with a `box`) into an
// #tile.nvmma_shared buffer read only by warpgroup dots is copied by the tensor memory
// accelerator. The descriptor's box and swizzle are recorded on the module (recordTma) for the
// launch, which encodes the TMA map: one box per descriptor, so a second block shape of the
// same descriptor stays on cp.async. A buffer that rounds its f32 source to tf32
// (`round_tf32`, a tf32 wgmma operand) moves by TMA only, whose map then rounds (cp.async
// cannot). Other loads move by cp.async when each access is 4, 8 or 16 bytes.
#include "../TmaRecord.h"
#include "Pipeliner.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-pipeline"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::pipeliner;

namespace {

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

/// `slice` in program order.
SmallVector<Operation *> inOrder(const SetVector<Operation *> &slice) {
  SmallVector<Operation *> ops(slice.begin(), slice.end());
  llvm::sort(ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ops;
}

/// Whether `c` (a descriptor block read only by warpgroup dots) can be a TMA copy: a rank-2
/// block of a kernel parameter, into a swizzled #tile.nvmma_shared buffer, whose box offsets
/// reach only the induction variable and values from outside the loop.
bool tmaApplies(LoadOp load, LocalAllocOp alloc, scf::ForOp loop, SetVector<Operation *> &slice) {
  auto arg = dyn_cast_or_null<BlockArgument>(load.getDesc());
  MemDescType t = alloc.getType();
  auto nvmma = dyn_cast<NvmmaSharedLayoutAttr>(t.getEncoding());
  if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp()) || !nvmma || !nvmma.getSwizzle() || t.getRank() != 2)
    return false;
  if (!readOnlyByWarpGroupDots(alloc.getResult())) return false;
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
    SetVector<Operation *> slice;
    if (tmaApplies(load, alloc, loop, slice)) return Candidate{load, alloc, inOrder(slice), /*tma=*/true};
  }
  // cp.async cannot round what it copies: a tf32 operand is pipelined by TMA only.
  if (alloc.getRoundTf32()) return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(load.getType());
  if (!type) return std::nullopt;
  unsigned bytes = vectorWidth(load).value_or(1) * type.getElementType().getIntOrFloatBitWidth() / 8;
  if (bytes != 4 && bytes != 8 && bytes != 16) {
    LLVM_DEBUG(llvm::dbgs() << "tile-pipeline: " << load.getLoc() << " not pipelined: " << bytes
                            << "-byte accesses (cp.async moves 4, 8 or 16)\n");
    return std::nullopt;
  }
  SetVector<Operation *> slice;
  if (!collectSlice(load.getPtr(), loop, slice) || (load.getMask() && !collectSlice(load.getMask(), loop, slice))) {
    LLVM_DEBUG(llvm::dbgs() << "tile-pipeline: " << load.getLoc()
                            << " not pipelined: its pointers or mask depend on loop-carried or impure values\n");
    return std::nullopt;
  }
  return Candidate{load, alloc, inOrder(slice), /*tma=*/false};
}

/// The warpgroup dots that can stay in flight across iterations: reading only pipelined
/// buffers (not a register a, whose registers the next iteration would rewrite while wgmma
/// still reads them), accumulating into a loop-carried value that only the yield uses after them.
SmallVector<WarpGroupDotOp> asyncDots(scf::ForOp loop, ArrayRef<Candidate> cands) {
  SmallVector<WarpGroupDotOp> dots;
  auto pipelined = [&](Value v) {
    if (auto view = v.getDefiningOp<MemDescTransOp>()) v = view.getSrc();
    return llvm::any_of(cands, [&](const Candidate &c) { return c.buffer() == v; });
  };
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto dot : loop.getBody()->getOps<WarpGroupDotOp>()) {
    auto arg = dyn_cast<BlockArgument>(dot.getAcc());
    if (dot.hasRegisterA() || !pipelined(dot.getA()) || !pipelined(dot.getB()) || !arg ||
        arg.getOwner() != loop.getBody() || arg.getArgNumber() == 0 || !arg.hasOneUse() || !dot->hasOneUse() ||
        yield.getOperand(arg.getArgNumber() - 1) != dot.getResult())
      return {}; // all or none: one wait count serves the loop
    dots.push_back(dot);
  }
  return dots;
}

/// A step the trip counts and comparisons of the cross-tile schedule may take as positive:
/// a positive constant, or the number of programs (a persistent loop's stride).
bool knownPositive(Value step) {
  APInt v;
  if (matchPattern(step, m_ConstantInt(&v))) return v.isStrictlyPositive();
  return step.getDefiningOp<NumProgramsOp>() != nullptr;
}

/// For a K loop that is the whole inner work of a persistent tile loop (CrossTileSchedule.cpp):
/// the ops of the enclosing scf.for's body, in order, that compute from its induction
/// variable the values the candidates' box offsets take from outside `loop` (a tile's
/// coordinates). nullopt when the loop does not qualify: a copy not by TMA, no enclosing
/// scf.for, bounds that vary with the tile, or offsets not computable so.
std::optional<SmallVector<Operation *>> tileSlice(scf::ForOp loop, ArrayRef<Candidate> cands) {
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
    LoadOp load = c.load;
    if (!llvm::all_of(load.getDescOffsets(), reach)) return std::nullopt;
  }
  return inOrder(slice);
}

/// The pass option, else the kernel's tile.num_stages, else 0 (the pipeliner chooses).
int requestedStages(scf::ForOp loop, int numStagesOption) {
  if (numStagesOption > 0) return numStagesOption;
  auto func = loop->getParentOfType<func::FuncOp>();
  if (auto a = func ? func->getAttrOfType<IntegerAttr>(kNumStagesAttr) : IntegerAttr()) return a.getInt();
  return 0;
}

/// Unless requested: 3 stages, or 4 where a wgmma group stays in flight (it holds one
/// slot, so 4 keep the copies two iterations ahead) and 4 rings of these tiles leave
/// shared memory for the rest (Hopper has 227 KB per block).
int defaultStages(ArrayRef<Candidate> cands, bool wgmmaInFlight) {
  int64_t bytes = 0;
  for (const Candidate &c : cands) {
    MemDescType t = c.bufferType();
    bytes += t.getNumElements() * int64_t(t.getElementType().getIntOrFloatBitWidth() / 8);
  }
  return wgmmaInFlight && 4 * bytes <= 200 * 1024 ? 4 : 3;
}

} // namespace

std::optional<LoopPlan> mlir::tile::pipeliner::planLoop(scf::ForOp loop, int numStagesOption) {
  const int requested = requestedStages(loop, numStagesOption);
  if (requested == 1) return std::nullopt;
  LoopPlan plan;
  plan.loop = loop;
  mergeDuplicateBuffers(*loop.getBody());
  for (auto alloc : loop.getBody()->getOps<LocalAllocOp>())
    if (auto c = asCandidate(alloc, loop)) plan.cands.push_back(*c);
  if (plan.cands.empty()) return std::nullopt;
  auto module = loop->getParentOfType<ModuleOp>();
  for (Candidate &c : plan.cands)
    if (c.tma && !recordTma(module, cast<BlockArgument>(c.load.getDesc()), c.alloc.getType(), c.alloc.getRoundTf32())) {
      // Another box of the same descriptor: pointers and cp.async after all (if they can).
      LLVM_DEBUG(llvm::dbgs() << "tile-pipeline: " << c.load.getLoc()
                              << " by cp.async: its descriptor is copied with another box already\n");
      std::optional<Candidate> ptrs = asCandidate(c.alloc, loop, /*allowTma=*/false);
      if (!ptrs) return std::nullopt;
      c = *ptrs;
    }
  plan.inFlight = asyncDots(loop, plan.cands);
  plan.stages = requested ? requested : defaultStages(plan.cands, !plan.inFlight.empty());
  // One wgmma group in flight needs a third slot; with two stages the dots wait.
  if (plan.stages < 3) plan.inFlight.clear();
  plan.ahead = plan.stages - 1 - (plan.inFlight.empty() ? 0 : 1);
  plan.tileSlice = tileSlice(loop, plan.cands);
  LLVM_DEBUG({
    llvm::dbgs() << "tile-pipeline: loop at " << loop.getLoc() << ": " << plan.cands.size() << " loads ("
                 << llvm::count_if(plan.cands, [](const Candidate &c) { return c.tma; }) << " by TMA), " << plan.stages
                 << " stages" << (requested ? " (requested)" : "") << ", copies " << plan.ahead << " iterations ahead, "
                 << plan.inFlight.size() << " dots in flight"
                 << (plan.tileSlice ? ", rings across the persistent tile loop" : "") << "\n";
  });
  return plan;
}

SmallVector<Value> mlir::tile::pipeliner::boxOffsetsAt(OpBuilder &b, const Candidate &c, scf::ForOp loop, Value iv,
                                                       const IRMapping &outside) {
  IRMapping map = outside;
  map.map(loop.getInductionVar(), iv);
  for (Operation *op : c.slice) b.clone(*op, map);
  SmallVector<Value> offsets;
  LoadOp load = c.load;
  for (Value off : load.getDescOffsets()) offsets.push_back(map.lookupOrDefault(off));
  return offsets;
}

unsigned mlir::tile::pipeliner::mergeDuplicateBuffers(Block &block) {
  auto onlyRead = [](LocalAllocOp alloc) {
    return llvm::all_of(alloc->getUsers(),
                        [](Operation *u) { return isa<LocalLoadOp, WarpGroupDotOp, MemDescTransOp>(u); });
  };
  unsigned merged = 0;
  for (LoadOp load : llvm::to_vector(block.getOps<LoadOp>())) {
    SmallVector<LocalAllocOp> allocs;
    for (Operation *user : load->getUsers())
      if (auto alloc = dyn_cast<LocalAllocOp>(user); alloc && alloc->getBlock() == &block && onlyRead(alloc))
        allocs.push_back(alloc);
    llvm::sort(allocs, [](LocalAllocOp a, LocalAllocOp b) { return a->isBeforeInBlock(b); });
    for (size_t i = 0; i < allocs.size(); ++i)
      for (size_t j = i + 1; j < allocs.size(); ++j)
        if (allocs[j] && allocs[i] && allocs[j].getType() == allocs[i].getType() &&
            allocs[j].getRoundTf32() == allocs[i].getRoundTf32()) {
          allocs[j].replaceAllUsesWith(allocs[i].getResult());
          allocs[j].erase();
          allocs[j] = nullptr;
          ++merged;
        }
  }
  return merged;
}

bool mlir::tile::pipeliner::isZero(Value v) {
  if (!v) return true;
  if (auto splat = v.getDefiningOp<SplatOp>()) v = splat.getSrc();
  return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
}

bool mlir::tile::pipeliner::readOnlyByWarpGroupDots(Value buffer) {
  for (Operation *user : buffer.getUsers()) {
    if (auto view = dyn_cast<MemDescTransOp>(user)) {
      if (!readOnlyByWarpGroupDots(view.getResult())) return false;
    } else if (!isa<WarpGroupDotOp>(user)) {
      return false;
    }
  }
  return true;
}
