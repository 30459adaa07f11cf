//===- OverlapDots.cpp - two independent wgmma dots in flight together ----===//
// A warpgroup dot waits for its wgmmas as it is issued (pendings = 0), so the code after it
// and the next dot wait too. Where a block issues two dots back to back whose operands are
// shared-memory buffers and the second does not read the first's result (attention's
// backward: S = Q Kᵀ and dP = dO Vᵀ of one block), both are issued first; the first is waited
// for when the second is issued (wait_group 1), and the second only before its result is
// first used. What runs on the first result (the softmax's exp2) then overlaps the second's
// wgmmas, as FlashAttention-3 overlaps them.
//
// The results travel through tile.warpgroup_dot_wait so that nothing reads them earlier. Only
// dots with a buffer a: wgmma reads a register a while in flight, and those registers could
// be reused before the wait. Blocks that already have dots in flight (the pipeliner's
// loop-carried ones) are left alone: one wait count serves them.
#include "Pipeliner.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-pipeline"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::pipeliner;

namespace {

/// `user`'s ancestor in `block` (the op itself when it is there).
Operation *inBlock(Operation *user, Block *block) { return block->findAncestorOpInBlock(*user); }

} // namespace

/// The first op of `d`'s block that uses its result (directly or inside its regions).
Operation *mlir::tile::pipeliner::firstUser(WarpGroupDotOp d) {
  Operation *first = nullptr;
  for (Operation *u : d->getUsers()) {
    Operation *at = inBlock(u, d->getBlock());
    if (at && (!first || at->isBeforeInBlock(first))) first = at;
  }
  return first;
}

namespace {

/// The first tile.barrier_arrive after `op` in its block.
Operation *firstArriveAfter(Operation *op) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (isa<BarrierArriveOp>(next)) return next;
  return nullptr;
}

unsigned overlapInBlock(Block &block) {
  SmallVector<WarpGroupDotOp> dots(block.getOps<WarpGroupDotOp>());
  if (!block.getOps<WarpGroupDotWaitOp>().empty() ||
      llvm::any_of(dots, [](WarpGroupDotOp d) { return d.getPendings() != 0; }))
    return 0;
  unsigned pairs = 0;
  for (size_t i = 0; i + 1 < dots.size(); ++i) {
    WarpGroupDotOp first = dots[i];
    if (first.hasRegisterA()) continue;
    WarpGroupDotOp second = independentPartnerOf(first, /*acrossMbarriers=*/false);
    Operation *secondUser = second ? whereDotIsNeeded(second) : nullptr;
    if (!second || !secondUser) continue;
    LLVM_DEBUG(llvm::dbgs() << "tile-pipeline: dots at " << first.getLoc() << " and " << second.getLoc()
                            << " in flight together\n");
    first.setPendings(1);
    second.setPendings(1); // its own wait (wait_group 1) retires the first
    OpBuilder b(second->getContext());
    b.setInsertionPointAfter(second);
    auto firstDone = WarpGroupDotWaitOp::create(b, first.getLoc(), TypeRange{first.getType()},
                                                ValueRange{first.getResult()}, b.getI32IntegerAttr(1));
    first.getResult().replaceAllUsesExcept(firstDone.getResult(0), firstDone);
    b.setInsertionPoint(secondUser);
    auto secondDone = WarpGroupDotWaitOp::create(b, second.getLoc(), TypeRange{second.getType()},
                                                 ValueRange{second.getResult()}, b.getI32IntegerAttr(0));
    second.getResult().replaceAllUsesExcept(secondDone.getResult(0), secondDone);
    ++pairs;
    ++i; // the second (dots[i + 1]) is not the first of another pair
  }
  return pairs;
}

} // namespace

WarpGroupDotOp mlir::tile::pipeliner::independentPartnerOf(WarpGroupDotOp first, bool acrossMbarriers, bool registerA) {
  for (Operation *op = first->getNextNode(); op; op = op->getNextNode()) {
    if (auto next = dyn_cast<WarpGroupDotOp>(op))
      return (registerA || !next.hasRegisterA()) && usedOnlyAfter(first.getResult(), next) ? next : WarpGroupDotOp();
    if (!leavesBuffersAlone(op) && !(acrossMbarriers && isa<BarrierWaitOp, BarrierArriveOp>(op))) return {};
  }
  return {};
}

bool mlir::tile::pipeliner::usedOnlyAfter(Value v, Operation *op) {
  return llvm::all_of(v.getUsers(), [&](Operation *u) {
    Operation *at = inBlock(u, op->getBlock());
    return at && op->isBeforeInBlock(at);
  });
}

Operation *mlir::tile::pipeliner::whereDotIsNeeded(WarpGroupDotOp d) {
  Operation *needed = firstUser(d);
  // A warp-specialised loop's consumers free their ring slot (tile.barrier_arrive) once no
  // dot reads it: the dot is waited for before that too.
  if (Operation *arrive = firstArriveAfter(d))
    if (!needed || arrive->isBeforeInBlock(needed)) needed = arrive;
  return needed;
}

bool mlir::tile::pipeliner::leavesBuffersAlone(Operation *op) {
  if (op->getNumRegions()) return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  return effects ? !effects.hasEffect<MemoryEffects::Write>() && !effects.hasEffect<MemoryEffects::Free>()
                 : isMemoryEffectFree(op);
}

unsigned mlir::tile::pipeliner::overlapIndependentDots(func::FuncOp kernel) {
  unsigned pairs = 0;
  SmallVector<Block *> blocks;
  kernel.walk([&](Block *block) { blocks.push_back(block); });
  for (Block *block : blocks) pairs += overlapInBlock(*block);
  return pairs;
}
