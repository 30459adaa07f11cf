//===- AllocateShared.cpp - shared-memory offsets by liveness --------------===//
// Ops are numbered in program order; a buffer lives from its tile.local_alloc to its
// last use (through memdesc_index and memdesc_trans views), stretched over any loop that
// uses it from outside, and an op's scratch lives at the op (scratchBytes: a layout
// conversion has scratch only when LayoutConversion.h sends it through shared memory, not
// when it stays in registers or within warps). Buffers are placed largest first at the
// lowest offset that overlaps no buffer whose lifetime overlaps theirs, at their alignment.
#include "tile/Analysis/SharedMemory.h"
#include "tile/Transforms/Passes.h"
#include "tile/Transforms/Preconditions.h"

#include "llvm/Support/Debug.h"

#include <cassert>

#define DEBUG_TYPE "tile-allocate-shared"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEALLOCATESHARED
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct Buffer {
  Operation *op;
  bool scratch;
  unsigned bytes, alignment;
  int64_t first, last; ///< live range in op numbers, inclusive
  int64_t offset = -1;
};

struct AllocateShared : mlir::tile::impl::TileAllocateSharedBase<AllocateShared> {
  void runOnOperation() override {
    if (failed(requireLayouts(getOperation(), getArgument()))) return signalPassFailure();
    ModuleOp module = getOperation();
    DenseMap<Operation *, int64_t> number;
    DenseMap<Operation *, int64_t> lastInside; // an op with regions -> its last nested op's number
    int64_t next = 0;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) { number[op] = next++; });
    module.walk<WalkOrder::PostOrder>([&](Operation *op) {
      int64_t last = number[op];
      for (Region &r : op->getRegions())
        for (Operation &inner : r.getOps()) last = std::max(last, lastInside[&inner]);
      lastInside[op] = last;
    });

    std::vector<Buffer> buffers;
    module.walk([&](Operation *op) {
      if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
        MemDescType t = alloc.getType();
        const unsigned bytes = unsigned(t.getNumElements() * sharedBytesOf(t.getElementType()));
        Buffer b{op, false, bytes, alignmentOf(t), number[op], number[op]};
        extendToUses(alloc.getResult(), b, number, lastInside);
        buffers.push_back(b);
      } else if (unsigned bytes = scratchBytes(op)) {
        buffers.push_back(Buffer{op, true, bytes, 16, number[op], number[op]});
      }
    });

    std::stable_sort(buffers.begin(), buffers.end(),
                     [](const Buffer &a, const Buffer &b) { return a.bytes > b.bytes; });
    int64_t total = 0;
    for (size_t i = 0; i < buffers.size(); ++i) {
      Buffer &b = buffers[i];
      int64_t offset = 0;
      for (bool moved = true; moved;) { // the lowest offset clear of every overlapping lifetime
        moved = false;
        offset = (offset + b.alignment - 1) / b.alignment * b.alignment;
        for (size_t j = 0; j < i; ++j) {
          const Buffer &o = buffers[j];
          bool liveTogether = b.first <= o.last && o.first <= b.last;
          if (liveTogether && offset < o.offset + o.bytes && o.offset < offset + b.bytes) {
            offset = o.offset + o.bytes;
            moved = true;
          }
        }
      }
      assert(offset % b.alignment == 0 && "a buffer placed off its alignment");
      b.offset = offset;
      total = std::max(total, offset + int64_t(b.bytes));
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << (b.scratch ? "scratch of " : "buffer ") << b.op->getName()
                              << " at " << b.op->getLoc() << ": " << b.bytes << " bytes live over ops [" << b.first
                              << ", " << b.last << "] -> offset " << offset << "\n");
      auto i32 = IntegerType::get(&getContext(), 32);
      b.op->setAttr(b.scratch ? kScratchOffsetAttr : kSharedOffsetAttr, IntegerAttr::get(i32, offset));
    }
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << buffers.size() << " buffer(s), " << total
                            << " bytes of shared memory per block\n");
    if (total) module->setAttr(kSharedBytesAttr, IntegerAttr::get(IntegerType::get(&getContext(), 32), total));
  }

  /// A buffer's alignment: 1024 bytes where an address's bits take part in a swizzle (TMA and
  /// wgmma's 128-byte swizzle repeats every 1024 bytes), 16 (a vector) where nothing is swizzled
  /// (the rings' mbarriers, so that a ring of pipelines does not cost a kilobyte each).
  static unsigned alignmentOf(MemDescType t) {
    auto plain = dyn_cast_or_null<SwizzledSharedLayoutAttr>(t.getEncoding());
    return plain && plain.getMaxPhase() == 1 ? 16 : 1024;
  }

  /// Extends b's lifetime to every (transitive, through views) use of `v`; a use inside a
  /// loop that `v` is defined outside of keeps it live through the whole loop.
  static void extendToUses(Value v, Buffer &b, DenseMap<Operation *, int64_t> &number,
                           DenseMap<Operation *, int64_t> &lastInside) {
    for (Operation *user : v.getUsers()) {
      int64_t end = number[user];
      for (Operation *p = user->getParentOp(); p; p = p->getParentOp()) {
        if (p == b.op->getParentOp() || p->isProperAncestor(b.op)) break;
        if (isa<LoopLikeOpInterface>(p)) end = std::max(end, lastInside[p]);
      }
      b.last = std::max(b.last, end);
      if (isa<MemDescIndexOp, MemDescTransOp>(user)) extendToUses(user->getResult(0), b, number, lastInside);
    }
  }
};

} // namespace
