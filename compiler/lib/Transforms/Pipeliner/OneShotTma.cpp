//===- OneShotTma.cpp - a top-level descriptor block copied once by TMA ---===//
// A kernel's descriptor block that no loop re-reads but warpgroup dots read (attention's Q
// block, read by every iteration of the K/V loop that follows) is otherwise a masked load:
// each thread loads its elements into registers, element by element where the block's rows
// are not known to be aligned, and writes them to the dots' buffer. Here it is one TMA copy
// into that buffer, as a ring of one slot (Ring.h): thread 0 arms the slot's mbarrier and
// issues the copy, every thread waits for phase 0, and the mbarrier is invalidated where the
// kernel ends. In a warp-specialised kernel the same holds for its consumers' region, where
// tile-warp-specialize moved such a block (the consumers' first thread issues it). The
// descriptor's box and swizzle are recorded for the launch (recordTma), as for the rings'
// copies; a descriptor that already has another box keeps the masked load.
#include "../TmaRecord.h"
#include "Ring.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-pipeline"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::pipeliner;

namespace {

/// The blocks whose straight-line code runs once per program: the kernel's body and, where
/// the kernel is warp-specialised, its consumers (attention's Q block moves there).
SmallVector<Block *> straightLineBlocks(func::FuncOp kernel) {
  Block *top = &kernel.getBody().front();
  SmallVector<Block *> blocks{top};
  for (auto split : top->getOps<WarpSpecializeOp>()) blocks.push_back(&split.getConsumers().front());
  return blocks;
}

/// The block `load` reads, as a TMA candidate, if it can be one: a zero-filled 2-D
/// descriptor block of a kernel parameter in `block` (straightLineBlocks), staged only into
/// one swizzled #tile.nvmma_shared buffer there that only warpgroup dots read (its
/// duplicates, one hoisted before each loop reading the block, merged before:
/// mergeDuplicateBuffers).
std::optional<Candidate> straightLineTmaBlock(LoadOp load, func::FuncOp kernel, Block &block) {
  if (!load.getDesc() || !isZero(load.getOther()) || load->getBlock() != &block || !load->hasOneUse())
    return std::nullopt;
  auto arg = dyn_cast<BlockArgument>(load.getDesc());
  auto alloc = dyn_cast<LocalAllocOp>(*load->getUsers().begin());
  if (!arg || arg.getOwner() != &kernel.getBody().front() || !alloc || alloc->getBlock() != &block ||
      !readOnlyByWarpGroupDots(alloc.getResult()))
    return std::nullopt;
  MemDescType t = alloc.getType();
  auto nvmma = dyn_cast<NvmmaSharedLayoutAttr>(t.getEncoding());
  if (!nvmma || !nvmma.getSwizzle() || t.getRank() != 2) return std::nullopt;
  return Candidate{load, alloc, {}, /*tma=*/true};
}

/// `block`'s candidates, each copied on an mbarrier of its own that is released where the
/// block ends. Returns how many.
unsigned copyBlocksByTma(func::FuncOp kernel, Block &block) {
  mergeDuplicateBuffers(block);
  SmallVector<Candidate> cands;
  for (LoadOp load : llvm::to_vector(block.getOps<LoadOp>()))
    if (std::optional<Candidate> c = straightLineTmaBlock(load, kernel, block)) cands.push_back(*c);
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
    OpBuilder atEnd = OpBuilder::atBlockEnd(&block);
    if (block.mightHaveTerminator()) atEnd.setInsertionPoint(block.getTerminator());
    ring.releaseBarriers(atEnd, loc);
    ++copied;
  }
  return copied;
}

} // namespace

unsigned mlir::tile::pipeliner::copyTopLevelBlocksByTma(func::FuncOp kernel) {
  unsigned copied = 0;
  for (Block *block : straightLineBlocks(kernel)) copied += copyBlocksByTma(kernel, *block);
  return copied;
}
