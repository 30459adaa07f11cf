//===- AllocateShared.cpp - shared-memory offsets by liveness --------------===//
// Ops are numbered in program order; a buffer lives from its tile.local_alloc to its
// last use (through memdesc_index and memdesc_trans views), stretched over any loop that
// uses it from outside, and an op's scratch lives at the op (scratchBytes: a layout
// conversion has scratch only when LayoutConversion.h sends it through shared memory, not
// when it stays in registers or within warps). A buffer a TMA store reads lives over the loop
// around the store (the read outlasts the op), and a warp-specialised loop's buffers and
// scratch live over the whole loop (loopPrivate). Buffers are placed largest first at the
// lowest offset that overlaps no buffer whose lifetime overlaps theirs, at their alignment.
#include "tile/Analysis/SharedMemory.h"
#include "tile/Compiler.h"
#include "tile/Transforms/Passes.h"
#include "tile/Transforms/Preconditions.h"

#include "llvm/Support/Debug.h"

#include <cassert>
#include <tuple>

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
  size_t index = 0; ///< in program order
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
    // Per buffer, its lifetime before extendOverAsyncReads and loopPrivate.
    std::vector<std::pair<int64_t, int64_t>> ownLifetimes;
    module.walk([&](Operation *op) {
      Buffer b{op, false, 0, 16, number[op], number[op]};
      if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
        MemDescType t = alloc.getType();
        b.bytes = unsigned(t.getNumElements() * sharedBytesOf(t.getElementType()));
        b.alignment = alignmentOf(t);
        extendToUses(alloc.getResult(), b, number, lastInside);
      } else if (unsigned bytes = scratchBytes(op)) {
        b.scratch = true;
        b.bytes = bytes;
      } else {
        return;
      }
      b.index = ownLifetimes.size();
      ownLifetimes.push_back({b.first, b.last});
      if (auto alloc = dyn_cast<LocalAllocOp>(op)) extendOverAsyncReads(alloc.getResult(), b, number, lastInside);
      loopPrivate(b, number, lastInside);
      buffers.push_back(b);
    });

    std::stable_sort(buffers.begin(), buffers.end(),
                     [](const Buffer &a, const Buffer &b) { return a.bytes > b.bytes; });
    int64_t total = place(buffers);
    const int limit = ::tile::compiler::maxSharedBytesPerBlock(targetComputeCapability(module));
    if (total > limit) {
      // Bytes kept apart do not fit: buffers share what their own lifetimes allow (a later
      // write to a TMA store's buffer still waits for its read: tile-insert-barriers).
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << total << " bytes with loop-private buffers, over " << limit
                              << ": shared by lifetime instead\n");
      for (Buffer &b : buffers) std::tie(b.first, b.last) = ownLifetimes[b.index];
      total = place(buffers);
    }
    for (const Buffer &b : buffers) {
      auto i32 = IntegerType::get(&getContext(), 32);
      b.op->setAttr(b.scratch ? kScratchOffsetAttr : kSharedOffsetAttr, IntegerAttr::get(i32, b.offset));
    }
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << buffers.size() << " buffer(s), " << total
                            << " bytes of shared memory per block\n");
    if (total) module->setAttr(kSharedBytesAttr, IntegerAttr::get(IntegerType::get(&getContext(), 32), total));
  }

  /// A warp-specialised loop's buffers and scratch (inside a tile.warp_specialize) live over the
  /// whole loop: none shares bytes with another of the loop, since reusing them would need a
  /// barrier over every consumer warpgroup between the two (the one-pass attention backward's
  /// row conversions, dSᵀ and dQ's staging shared their bytes: six barriers an iteration where
  /// four order the data). Such kernels run one program per multiprocessor, so the extra bytes
  /// cost no occupancy; where they do not fit, the lifetimes are the buffers' own.
  static void loopPrivate(Buffer &b, DenseMap<Operation *, int64_t> &number,
                          DenseMap<Operation *, int64_t> &lastInside) {
    auto loop = b.op->getParentOfType<LoopLikeOpInterface>();
    if (!loop || !loop->getParentOfType<WarpSpecializeOp>()) return;
    b.first = std::min(b.first, number[loop]);
    b.last = std::max(b.last, lastInside[loop]);
  }

  /// Places `buffers` (largest first) at the lowest offsets their lifetimes allow; the bytes
  /// of shared memory they need.
  static int64_t place(std::vector<Buffer> &buffers) {
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
    }
    return total;
  }

  /// A buffer's alignment: 1024 bytes where an address's bits take part in a swizzle (TMA and
  /// wgmma's 128-byte swizzle repeats every 1024 bytes), 16 (a vector) where nothing is swizzled
  /// (the rings' mbarriers, so that a ring of pipelines does not cost a kilobyte each).
  static unsigned alignmentOf(MemDescType t) {
    auto plain = dyn_cast_or_null<SwizzledSharedLayoutAttr>(t.getEncoding());
    return plain && plain.getMaxPhase() == 1 ? 16 : 1024;
  }

  /// A TMA store reads its buffer after the op, until thread 0 waits at a later barrier
  /// (tile-insert-barriers): in a loop, into the next iteration. So the buffer lives over the
  /// whole loop around the store, and no other buffer of the loop shares its bytes: one that did
  /// would wait for the read before its every write. (After a store outside loops a write to
  /// its bytes waits too, tile-insert-barriers sees to that, but kernels write little there:
  /// the masked store's conversion in the other branch may share them.)
  static void extendOverAsyncReads(Value v, Buffer &b, DenseMap<Operation *, int64_t> &number,
                                   DenseMap<Operation *, int64_t> &lastInside) {
    for (Operation *user : v.getUsers()) {
      if (isa<MemDescIndexOp, MemDescTransOp>(user)) extendOverAsyncReads(user->getResult(0), b, number, lastInside);
      if (!isa<AsyncTmaStoreOp>(user)) continue;
      if (Operation *loop = user->getParentOfType<LoopLikeOpInterface>()) {
        b.first = std::min(b.first, number[loop]);
        b.last = std::max(b.last, lastInside[loop]);
      }
    }
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
