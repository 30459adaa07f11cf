//===- OptimizeDotOperands.cpp - dot operands through swizzled shared memory ===//
// A conversion into a tensor-core operand layout (#tile.dot_operand) becomes a write to an
// ldmatrix-swizzled buffer and a read of the fragments from it, unless the threads already
// hold their fragments (LayoutConversion.h: Registers).
#include "tile/Analysis/LayoutConversion.h"
#include "tile/Layout/SharedLayouts.h"
#include "tile/Transforms/Passes.h"
#include "tile/Transforms/Preconditions.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-optimize-dot-operands"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEOPTIMIZEDOTOPERANDS
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct OptimizeDotOperands : mlir::tile::impl::TileOptimizeDotOperandsBase<OptimizeDotOperands> {
  void runOnOperation() override {
    if (failed(requireLayouts(getOperation(), getArgument()))) return signalPassFailure();
    SmallVector<ConvertLayoutOp> converts;
    getOperation().walk([&](ConvertLayoutOp c) {
      auto dst = c.getType();
      if (!isa<DotOperandLayoutAttr>(dst.getEncoding()) || dst.getRank() != 2 || !dst.getElementType().isIntOrFloat())
        return;
      const unsigned bits = dst.getElementType().getIntOrFloatBitWidth();
      if (bits != 16 && bits != 32) return;
      // Every thread already holds its fragments (a 16-bit accumulator becoming the next
      // dot's a, as attention's P): the conversion only picks registers.
      if (classifyLayoutConversion(c) == LayoutConversionKind::Registers) {
        LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << c.getLoc() << ": operand " << dst
                                << " already in its threads' registers: not staged\n");
        return;
      }
      converts.push_back(c);
    });
    for (ConvertLayoutOp c : converts) {
      auto type = c.getType();
      const int elemBytes = int(type.getElementType().getIntOrFloatBitWidth() / 8);
      const int contiguous = contiguousDimInShared(c);
      auto swizzle = ::tile::layout::ldmatrixSwizzle(type.getDimSize(contiguous), elemBytes);
      SmallVector<unsigned> order = contiguous == 1 ? SmallVector<unsigned>{1, 0} : SmallVector<unsigned>{0, 1};
      auto shared =
          SwizzledSharedLayoutAttr::get(&getContext(), swizzle.vec, swizzle.perPhase, swizzle.maxPhase, order);
      auto buffer = MemDescType::get(&getContext(), type.getShape(), type.getElementType(), shared);
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << c.getLoc() << ": operand " << type << " staged through "
                              << buffer << " (contiguous dim " << contiguous << ")\n");
      OpBuilder b(c);
      Value m = LocalAllocOp::create(b, c.getLoc(), buffer, c.getSrc());
      Value loaded = LocalLoadOp::create(b, c.getLoc(), type, m);
      c.replaceAllUsesWith(loaded);
      c.erase();
    }
    getOperation().walk([&](DotOp dot) { splitAlongK(dot); });
  }

  /// The dimension an operand buffer keeps contiguous: the rows (dim1) as a rule; K (dim0)
  /// for a 32-bit (tf32) operand b, whose fragments ldmatrix then reads like a's (there is
  /// no 32-bit .trans), unless the value arrives in vectors along N, which a K-contiguous
  /// buffer would split into single-element copies.
  static int contiguousDimInShared(ConvertLayoutOp c) {
    auto dst = cast<DotOperandLayoutAttr>(c.getType().getEncoding());
    if (dst.getOpIdx() != 1 || c.getType().getElementType().getIntOrFloatBitWidth() != 32) return 1;
    auto src = dyn_cast<BlockedLayoutAttr>(c.getSrc().getType().getEncoding());
    if (!src) return 1;
    const unsigned fastest = src.getOrder()[0];
    return fastest == 0 || src.getSizePerThread()[fastest] == 1 ? 0 : 1;
  }

  /// A tensor-core dot reading both operands from buffers becomes one dot per K slice of
  /// one instruction (16 wide, 8 for tf32), each reading its slice just before it (in
  /// increasing k, so the accumulation order is unchanged): only one slice of operand
  /// fragments is live at a time instead of the whole K, which leaves registers for larger
  /// tiles.
  static void splitAlongK(DotOp dot) {
    auto a = dot.getA().getDefiningOp<LocalLoadOp>(), b = dot.getB().getDefiningOp<LocalLoadOp>();
    if (!a || !b || a.getOffsets() || b.getOffsets() || !isa<MmaLayoutAttr>(dot.getType().getEncoding())) return;
    auto aType = a.getType(), bType = b.getType();
    const int64_t kSlice = aType.getElementType().isF32() ? 8 : 16;
    const int64_t m = aType.getDimSize(0), k = aType.getDimSize(1), n = bType.getDimSize(1);
    if (k <= kSlice) return;
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << dot.getLoc() << ": dot split along K into " << k / kSlice
                            << " slices of " << kSlice << "\n");
    OpBuilder builder(dot);
    Location loc = dot.getLoc();
    auto sliceA = RankedTensorType::get({m, kSlice}, aType.getElementType(), aType.getEncoding());
    auto sliceB = RankedTensorType::get({kSlice, n}, bType.getElementType(), bType.getEncoding());
    Value acc = dot.getAcc();
    for (int64_t k0 = 0; k0 < k; k0 += kSlice) {
      Value ak = LocalLoadOp::create(builder, loc, sliceA, a.getSrc(), builder.getDenseI64ArrayAttr({0, k0}));
      Value bk = LocalLoadOp::create(builder, loc, sliceB, b.getSrc(), builder.getDenseI64ArrayAttr({k0, 0}));
      acc = DotOp::create(builder, loc, dot.getType(), ak, bk, acc, dot.getInputPrecisionAttr());
    }
    dot.replaceAllUsesWith(acc);
    dot.erase();
    if (a->use_empty()) a.erase();
    if (b != a && b->use_empty()) b.erase();
  }
};

} // namespace
