//===- Descriptors.cpp - tensor descriptors, TMA copies and mbarriers -------===//
// A !tile.tensordesc is a pointer to its tile::TensorDescParam (tile/TensorDescAbi.h): on the
// GPU the kernel parameter itself, passed `byval` as a grid constant, so reading base, extents
// and strides is a load from parameter space and cp.async.bulk.tensor reads the TMA map at its
// start in place. Barrier rings are 8-byte mbarriers, one per stage; "thread 0" (emitIsLeader: a
// warp-specialised producer's first thread in its region) issues what one
// thread of the program must (initialisation, expect_tx, the copies).
#include "TileToLLVM.h"

#include "tile/Layout/SharedLayouts.h"
#include "tile/TensorDescAbi.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/Debug.h"

#include <cstddef>

// The patterns of convert-tile-to-llvm: `tile-opt -debug-only=convert-tile-to-llvm`.
#define DEBUG_TYPE "convert-tile-to-llvm"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// A field of the descriptor parameter `desc` (a pointer to it) at `byteOffset`.
Value loadField(OpBuilder &b, Location loc, Value desc, int64_t byteOffset, Type type) {
  Value at =
      LLVM::GEPOp::create(b, loc, desc.getType(), b.getI8Type(), desc, ArrayRef<LLVM::GEPArg>{int32_t(byteOffset)});
  return LLVM::LoadOp::create(b, loc, type, at, /*alignment=*/4);
}

struct DescriptorBaseLowering : OpConversionPattern<DescriptorBaseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DescriptorBaseOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type global = LLVM::LLVMPointerType::get(op.getContext(), /*addressSpace=*/1);
    rewriter.replaceOp(
        op, loadField(rewriter, op.getLoc(), adaptor.getDesc()[0], offsetof(::tile::TensorDescParam, base), global));
    return success();
  }
};

struct DescriptorDimLowering : OpConversionPattern<DescriptorDimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DescriptorDimOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    const int64_t field =
        op.getStride() ? offsetof(::tile::TensorDescParam, strides) : offsetof(::tile::TensorDescParam, shape);
    rewriter.replaceOp(op, loadField(rewriter, op.getLoc(), adaptor.getDesc()[0], field + 4 * int64_t(op.getDim()),
                                     rewriter.getI32Type()));
    return success();
  }
};

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
    Value first = emitIsLeader(rewriter, loc, op);
    Value count = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), op.getCount());
    for (int64_t i = 0; i < op.getBars().getType().getShape()[0]; ++i)
      NVVM::MBarrierInitOp::create(rewriter, loc, barrierAt(rewriter, loc, adaptor.getBars()[0], i), count, first);
    // Makes the initialisation visible to the async proxy (the copies' complete_tx).
    NVVM::FenceMbarrierInitOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Emits `body` in a branch only `op`'s leader thread takes (emitIsLeader: for instructions
/// without a predicate operand).
void onLeader(ConversionPatternRewriter &rewriter, Operation *op, llvm::function_ref<void()> body) {
  emitIf(rewriter, op->getLoc(), [&] { return emitIsLeader(rewriter, op->getLoc(), op); }, body);
}

struct InvalidateBarriersLowering : OpConversionPattern<InvalidateBarriersOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(InvalidateBarriersOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    onLeader(rewriter, op, [&] {
      for (int64_t i = 0; i < op.getBars().getType().getShape()[0]; ++i)
        NVVM::MBarrierInvalOp::create(rewriter, loc, barrierAt(rewriter, loc, adaptor.getBars()[0], i));
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// The boxes of a 2-D #tile.nvmma_shared buffer that one TMA copy each moves (TmaRecord.h's
/// tmaBox): column groups of the swizzle width (each rows x W, stored one after another),
/// and within a group chunks of at most 256 rows (TMA's largest box). `copy` gets the box's
/// byte offset in the buffer and its first row and column in the block.
void forEachTmaBox(MemDescType buffer, llvm::function_ref<void(int64_t byteOffset, int64_t row, int64_t col)> copy) {
  auto layout = cast<NvmmaSharedLayoutAttr>(buffer.getEncoding());
  const int64_t rows = buffer.getShape()[0], cols = buffer.getShape()[1];
  const int64_t swizzle = layout.getSwizzle(), width = swizzle / sharedBytesOf(buffer.getElementType());
  const int64_t boxRows = std::min<int64_t>(rows, ::tile::layout::kMaxTmaBoxRows);
  for (int64_t g = 0; g < cols / width; ++g)
    for (int64_t r = 0; r < rows; r += boxRows) copy((g * rows + r) * swizzle, r, g * width);
}

/// `base` (a shared pointer) advanced by `bytes`.
Value byteOffset(OpBuilder &b, Location loc, Value base, int64_t bytes) {
  if (!bytes) return base;
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base, ArrayRef<LLVM::GEPArg>{int32_t(bytes)});
}

/// The box coordinates of (row0 + row, col0 + col), innermost first as the PTX instruction takes them.
SmallVector<Value> boxCoords(IntBuilder &ib, Value row0, Value col0, int64_t row, int64_t col) {
  return {col ? ib.add(col0, ib.c(col)) : col0, row ? ib.add(row0, ib.c(row)) : row0};
}

struct BarrierExpectLowering : OpConversionPattern<BarrierExpectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(BarrierExpectOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value pred = LLVM::AndOp::create(rewriter, loc, adaptor.getPred()[0], emitIsLeader(rewriter, loc, op));
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

/// One cp.async.bulk.tensor per box (forEachTmaBox) into the buffer, on the stage's mbarrier.
struct AsyncTmaLoadLowering : OpConversionPattern<AsyncTmaLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AsyncTmaLoadOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MemDescType dst = op.getDst().getType();
    if (dst.getRank() != 2 || op.getCoords().size() != 2)
      return op.emitOpError("copies 2-D blocks into swizzled buffers only");
    Value pred = LLVM::AndOp::create(rewriter, loc, adaptor.getPred()[0], emitIsLeader(rewriter, loc, op));
    // A shared::cta address is a valid shared::cluster address of this program (no cluster
    // launch): the copy's destination space (isCTAOnly would need PTX 8.6).
    Type cluster = LLVM::LLVMPointerType::get(op.getContext(), /*addressSpace=*/7);
    Value base = adaptor.getDst()[0], bar = adaptor.getBar()[0], desc = adaptor.getDesc()[0];
    Value row0 = adaptor.getCoords()[0][0], col0 = adaptor.getCoords()[1][0];
    IntBuilder ib{rewriter, loc};
    LLVM_DEBUG({
      int boxes = 0;
      forEachTmaBox(dst, [&](int64_t, int64_t, int64_t) { ++boxes; });
      llvm::dbgs() << "[" DEBUG_TYPE "] tile.async_tma_load at " << loc << ": " << boxes << " TMA box(es) into " << dst
                   << "\n";
    });
    forEachTmaBox(dst, [&](int64_t bytes, int64_t row, int64_t col) {
      Value to = LLVM::AddrSpaceCastOp::create(rewriter, loc, cluster, byteOffset(rewriter, loc, base, bytes));
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          rewriter, loc, to, desc, boxCoords(ib, row0, col0, row, col), bar, /*im2colOffsets=*/ValueRange{},
          /*multicastMask=*/Value(), /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false,
          /*group=*/nullptr, pred);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Thread 0: one cp.async.bulk.tensor (with `add`, cp.reduce.async.bulk.tensor .add) per box
/// (forEachTmaBox) from the buffer, committed as one bulk group (tile.async_tma_store_wait
/// waits for it to have read the buffer).
struct AsyncTmaStoreLowering : OpConversionPattern<AsyncTmaStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AsyncTmaStoreOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value base = adaptor.getSrc()[0], desc = adaptor.getDesc()[0];
    Value row0 = adaptor.getCoords()[0][0], col0 = adaptor.getCoords()[1][0];
    onLeader(rewriter, op, [&] {
      IntBuilder ib{rewriter, loc};
      forEachTmaBox(op.getSrc().getType(), [&](int64_t bytes, int64_t row, int64_t col) {
        Value from = byteOffset(rewriter, loc, base, bytes);
        SmallVector<Value> coords = boxCoords(ib, row0, col0, row, col);
        if (op.getAdd())
          NVVM::CpAsyncBulkTensorReduceOp::create(rewriter, loc, desc, from, NVVM::TMAReduxKind::ADD,
                                                  NVVM::TMAStoreMode::TILE, coords, /*l2CacheHint=*/Value());
        else
          NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(rewriter, loc, desc, from, coords, /*l2CacheHint=*/Value(),
                                                             NVVM::TMAStoreMode::TILE, /*predicate=*/Value());
      });
      NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Thread 0 (which issued the copies): cp.async.bulk.wait_group.read 0.
struct AsyncTmaStoreWaitLowering : OpConversionPattern<AsyncTmaStoreWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AsyncTmaStoreWaitOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    onLeader(rewriter, op, [&] {
      NVVM::CpAsyncBulkWaitGroupOp::create(rewriter, op.getLoc(), rewriter.getI32IntegerAttr(0),
                                           rewriter.getUnitAttr());
    });
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateDescriptorPatterns(TileTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DescriptorBaseLowering, DescriptorDimLowering, InitBarriersLowering, InvalidateBarriersLowering,
               BarrierExpectLowering, BarrierWaitLowering, AsyncTmaLoadLowering, AsyncTmaStoreLowering,
               AsyncTmaStoreWaitLowering>(converter, patterns.getContext());
}
