//===- OneShotTma.cpp - a top-level descriptor block copied once by TMA ---===//
// A kernel's descriptor block that no loop re-reads but warpgroup dots read (attention's Q
// block, read by every iteration of the K/V loop that follows) is otherwise a masked load:
// each thread loads its elements into registers, element by element where the block's rows
// are not known to be aligned, and writes them to the dots' buffer. Here it is one TMA copy
// into that buffer, as a ring of one slot (Ring.h): thread 0 arms the slot's mbarrier and
// issues the copy, every thread waits for phase 0, and the mbarrier is invalidated where the
// kernel ends. The descriptor's box and swizzle are recorded for the launch (recordTma), as
// for the rings' copies; a descriptor that already has another box keeps the masked load.
#include "../TmaRecord.h"
#include "Ring.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-pipeline"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::pipeliner;

namespace {

/// The block `load` reads, as a TMA candidate, if it can be one: a zero-filled 2-D
/// descriptor block of a kernel parameter at the kernel's top level, staged only into one
/// swizzled #tile.nvmma_shared buffer that only warpgroup dots read (its duplicates, one
/// hoisted before each loop reading the block, merged before: mergeDuplicateBuffers).
std::optional<Candidate> topLevelTmaBlock(LoadOp load, func::FuncOp kernel) {
  Block *top = &kernel.getBody().front();
  if (!load.getDesc() || !isZero(load.getOther()) || load->getBlock() != top || !load->hasOneUse()) return std::nullopt;
  auto arg = dyn_cast<BlockArgument>(load.getDesc());
  auto alloc = dyn_cast<LocalAllocOp>(*load->getUsers().begin());
  if (!arg || arg.getOwner() != top || !alloc || alloc->getBlock() != top ||
      !readOnlyByWarpGroupDots(alloc.getResult()))
    return std::nullopt;
  MemDescType t = alloc.getType();
  auto nvmma = dyn_cast<NvmmaSharedLayoutAttr>(t.getEncoding());
  if (!nvmma || !nvmma.getSwizzle() || t.getRank() != 2) return std::nullopt;
  return Candidate{load, alloc, {}, /*tma=*/true};
}

} // namespace

unsigned mlir::tile::pipeliner::copyTopLevelBlocksByTma(func::FuncOp kernel) {
  mergeDuplicateBuffers(kernel.getBody().front());
  SmallVector<Candidate> cands;
  SmallVector<LoadOp> loads;
  kernel.walk([&](LoadOp load) { loads.push_back(load); });
  for (LoadOp load : loads)
    if (std::optional<Candidate> c = topLevelTmaBlock(load, kernel)) cands.push_back(*c);
  auto module = kernel->getParentOfType<ModuleOp>();
  unsigned copied = 0;
  for (Candidate &c : cands) {
    if (!recordTma(module, cast<BlockArgument>(c.load.getDesc()), c.alloc.getType(), c.alloc.getRoundTf32())) {
      LLVM_DEBUG(llvm::dbgs() << "tile-pipeline: " << c.load.getLoc()
                              << " stays a masked load: its descriptor has another TMA box\n");
      continue;
    }
    LLVM_DEBUG(llvm::dbgs() << "tile-pipeline: " << c.load.getLoc() << " copied once by TMA\n");
    Location loc = c.load.getLoc();
    OpBuilder b(c.alloc);
    SmallVector<Value> offsets(c.load.getDescOffsets());
    Ring ring = Ring::allocate(b, loc, {c}, /*stages=*/1);
    ring.createFullBarriers(b, loc);
    IndexMath m{b, loc, b.getI32Type()};
    Value first = m.cst(0);
    Value always = arith::ConstantIntOp::create(b, loc, 1, 1);
    ring.issueTma(b, loc, {c}, {offsets}, first, always);
    ring.waitFull(m, first);
    SmallVector<Candidate> one{c};
    ring.readFromSlot(b, loc, one, first);
    OpBuilder atEnd(kernel.getBody().front().getTerminator());
    ring.releaseBarriers(atEnd, loc);
    ++copied;
  }
  return copied;
}
