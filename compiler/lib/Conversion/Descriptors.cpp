//===- Descriptors.cpp - tensor descriptors, TMA copies and mbarriers -------===//
// A !tile.tensordesc is a pointer to its tile::TensorDescParam (tile/TensorDescAbi.h): on the
// GPU the kernel parameter itself, passed `byval` as a grid constant, so reading base, extents
// and strides is a load from parameter space and cp.async.bulk.tensor reads the TMA map at its
// start in place. Barrier rings are 8-byte mbarriers, one per stage; "thread 0" issues what one
// thread of the program must (initialisation, expect_tx, the copies).
#include "TileToLLVM.h"

#include "tile/Layout/SharedLayouts.h"
#include "tile/TensorDescAbi.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include <cstddef>

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A field of the descriptor parameter `desc` (a pointer to it) at `byteOffset`.
Value loadField(OpBuilder &b, Location loc, Value desc, int64_t byteOffset, Type type) {
  Value at = LLVM::GEPOp::create(b, loc, desc.getType(), b.getI8Type(), desc, ArrayRef<LLVM::GEPArg>{int32_t(byteOffset)});
  return LLVM::LoadOp::create(b, loc, type, at, /*alignment=*/4);
}

struct DescriptorBaseLowering : OpConversionPattern<DescriptorBaseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DescriptorBaseOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type global = LLVM::LLVMPointerType::get(op.getContext(), /*addressSpace=*/1);
    rewriter.replaceOp(op, loadField(rewriter, op.getLoc(), adaptor.getDesc()[0], offsetof(::tile::TensorDescParam, base),
                                     global));
    return success();
  }
};

struct DescriptorDimLowering : OpConversionPattern<DescriptorDimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DescriptorDimOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    const int64_t field = op.getStride() ? offsetof(::tile::TensorDescParam, strides) : offsetof(::tile::TensorDescParam, shape);
    rewriter.replaceOp(op, loadField(rewriter, op.getLoc(), adaptor.getDesc()[0], field + 4 * int64_t(op.getDim()),
                                     rewriter.getI32Type()));
    return success();
  }
};

Value isThreadZero(OpBuilder &b, Location loc) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, tid, LLVM::ConstantOp::create(b, loc, b.getI32Type(), 0));
}

/// The mbarrier of stage `i` of a ring at `base`.
Value barrierAt(OpBuilder &b, Location loc, Value base, int64_t i) {
  if (!i) return base;
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI64Type(), base, ArrayRef<LLVM::GEPArg>{int32_t(i)});
}

struct InitBarriersLowering : OpConversionPattern<InitBarriersOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(InitBarriersOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value first = isThreadZero(rewriter, loc);
    Value one = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), 1);
    for (int64_t i = 0; i < op.getBars().getType().getShape()[0]; ++i)
      NVVM::MBarrierInitOp::create(rewriter, loc, barrierAt(rewriter, loc, adaptor.getBars()[0], i), one, first);
    // Makes the initialisation visible to the async proxy (the copies' complete_tx).
    NVVM::FenceMbarrierInitOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

struct InvalidateBarriersLowering : OpConversionPattern<InvalidateBarriersOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(InvalidateBarriersOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // mbarrier.inval has no predicate operand: branch around it.
    Block *before = rewriter.getInsertionBlock();
    Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
    Block *then = rewriter.createBlock(after);
    for (int64_t i = 0; i < op.getBars().getType().getShape()[0]; ++i)
      NVVM::MBarrierInvalOp::create(rewriter, loc, barrierAt(rewriter, loc, adaptor.getBars()[0], i));
    LLVM::BrOp::create(rewriter, loc, after);
    rewriter.setInsertionPointToEnd(before);
    LLVM::CondBrOp::create(rewriter, loc, isThreadZero(rewriter, loc), then, after);
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierExpectLowering : OpConversionPattern<BarrierExpectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(BarrierExpectOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value pred = LLVM::AndOp::create(rewriter, loc, adaptor.getPred()[0], isThreadZero(rewriter, loc));
    Value bytes = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), op.getBytes());
    NVVM::MBarrierArriveExpectTxOp::create(rewriter, loc, Type(), adaptor.getBar()[0], bytes, NVVM::MemScopeKind::CTA,
                                           /*relaxed=*/false, pred);
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierWaitLowering : OpConversionPattern<BarrierWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(BarrierWaitOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value ticks = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), 0);
    NVVM::MBarrierTryWaitParityOp::create(rewriter, loc, adaptor.getBar()[0], adaptor.getPhase()[0], ticks);
    rewriter.eraseOp(op);
    return success();
  }
};

/// One cp.async.bulk.tensor per box of the buffer's #tile.nvmma_shared layout: column groups of
/// the swizzle width (each rows x W, stored one after another), and within a group chunks of at
/// most 256 rows (TMA's largest box).
struct AsyncTmaLoadLowering : OpConversionPattern<AsyncTmaLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AsyncTmaLoadOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MemDescType dst = op.getDst().getType();
    auto layout = cast<NvmmaSharedLayoutAttr>(dst.getEncoding());
    const int64_t rows = dst.getShape()[0], cols = dst.getShape()[1];
    const int64_t swizzle = layout.getSwizzle(), elemBytes = sharedBytesOf(dst.getElementType());
    if (dst.getRank() != 2 || op.getCoords().size() != 2 || !swizzle)
      return op.emitOpError("copies 2-D blocks into swizzled buffers only");
    const int64_t width = swizzle / elemBytes, boxRows = std::min<int64_t>(rows, ::tile::layout::kMaxTmaBoxRows);
    Value pred = LLVM::AndOp::create(rewriter, loc, adaptor.getPred()[0], isThreadZero(rewriter, loc));
    // A shared::cta address is a valid shared::cluster address of this program (no cluster
    // launch): the copy's destination space (isCTAOnly would need PTX 8.6).
    Type cluster = LLVM::LLVMPointerType::get(op.getContext(), /*addressSpace=*/7);
    Value base = adaptor.getDst()[0], bar = adaptor.getBar()[0], desc = adaptor.getDesc()[0];
    Value row0 = adaptor.getCoords()[0][0], col0 = adaptor.getCoords()[1][0];
    IntBuilder ib{rewriter, loc};
    for (int64_t g = 0; g < cols / width; ++g)
      for (int64_t r = 0; r < rows; r += boxRows) {
        const int64_t byteOffset = (g * rows + r) * swizzle;
        Value at = byteOffset ? Value(LLVM::GEPOp::create(rewriter, loc, base.getType(), rewriter.getI8Type(), base,
                                                          ArrayRef<LLVM::GEPArg>{int32_t(byteOffset)}))
                              : base;
        Value to = LLVM::AddrSpaceCastOp::create(rewriter, loc, cluster, at);
        // Coordinates innermost first, as the PTX instruction takes them.
        SmallVector<Value> coords{g ? ib.add(col0, ib.c(g * width)) : col0, r ? ib.add(row0, ib.c(r)) : row0};
        NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
            rewriter, loc, to, desc, coords, bar, /*im2colOffsets=*/ValueRange{}, /*multicastMask=*/Value(),
            /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false, /*group=*/nullptr, pred);
      }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateDescriptorPatterns(TileTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DescriptorBaseLowering, DescriptorDimLowering, InitBarriersLowering, InvalidateBarriersLowering,
               BarrierExpectLowering, BarrierWaitLowering, AsyncTmaLoadLowering>(converter, patterns.getContext());
}
