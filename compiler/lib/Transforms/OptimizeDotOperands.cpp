//===- OptimizeDotOperands.cpp - dot operands through swizzled shared memory ===//
#include "tile/Layout/SharedLayouts.h"
#include "tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEOPTIMIZEDOTOPERANDS
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct OptimizeDotOperands : mlir::tile::impl::TileOptimizeDotOperandsBase<OptimizeDotOperands> {
  void runOnOperation() override {
    SmallVector<ConvertLayoutOp> converts;
    getOperation().walk([&](ConvertLayoutOp c) {
      auto dst = c.getType();
      if (isa<DotOperandLayoutAttr>(dst.getEncoding()) && dst.getRank() == 2 &&
          dst.getElementType().getIntOrFloatBitWidth() == 16)
        converts.push_back(c);
    });
    for (ConvertLayoutOp c : converts) {
      auto type = c.getType();
      auto swizzle = ::tile::layout::ldmatrixSwizzle(type.getDimSize(1), 2);
      auto shared = SwizzledSharedLayoutAttr::get(&getContext(), swizzle.vec, swizzle.perPhase, swizzle.maxPhase, {1, 0});
      auto buffer = MemDescType::get(&getContext(), type.getShape(), type.getElementType(), shared);
      OpBuilder b(c);
      Value m = LocalAllocOp::create(b, c.getLoc(), buffer, c.getSrc());
      Value loaded = LocalLoadOp::create(b, c.getLoc(), type, m);
      c.replaceAllUsesWith(loaded);
      c.erase();
    }
  }
};

} // namespace
