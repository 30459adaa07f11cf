//===- ShapeOps.cpp - ids, ranges, splats, shape changes, pointers, layouts ===//
#include "SharedAccess.h"

#include "tile/Layout/SharedLayouts.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/Debug.h"

// The patterns of convert-tile-to-llvm: `tile-opt -debug-only=convert-tile-to-llvm`.
#define DEBUG_TYPE "convert-tile-to-llvm"

using namespace mlir;
using namespace mlir::tile;

namespace {

template <class Op> using Adaptor = typename OpConversionPattern<Op>::OneToNOpAdaptor;

unsigned regsOf(Type t) {
  auto rt = dyn_cast<RankedTensorType>(t);
  return rt ? ThreadLayout::get(rt).numRegs() : 1;
}

struct ProgramIdLowering : OpConversionPattern<ProgramIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ProgramIdOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Location loc = op.getLoc();
    Value v;
    switch (op.getAxis()) {
    case 0: v = NVVM::BlockIdXOp::create(rewriter, loc, i32); break;
    case 1: v = NVVM::BlockIdYOp::create(rewriter, loc, i32); break;
    default: v = NVVM::BlockIdZOp::create(rewriter, loc, i32); break;
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

struct NumProgramsLowering : OpConversionPattern<NumProgramsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(NumProgramsOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Location loc = op.getLoc();
    Value v;
    switch (op.getAxis()) {
    case 0: v = NVVM::GridDimXOp::create(rewriter, loc, i32); break;
    case 1: v = NVVM::GridDimYOp::create(rewriter, loc, i32); break;
    default: v = NVVM::GridDimZOp::create(rewriter, loc, i32); break;
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

struct MakeRangeLowering : OpConversionPattern<MakeRangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MakeRangeOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    ThreadLayout layout = ThreadLayout::get(op.getType());
    Location loc = op.getLoc();
    ThreadPosition pos = emitThreadPosition(rewriter, loc, layout);
    IntBuilder ib{rewriter, loc};
    SmallVector<Value> regs;
    for (unsigned r = 0; r < layout.numRegs(); ++r) {
      Value c = emitCoord(rewriter, loc, layout, pos, r, 0);
      regs.push_back(op.getStart() ? ib.add(c, ib.c(op.getStart())) : c);
    }
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

struct SplatLowering : OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SplatOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> regs(regsOf(op.getType()), adaptor.getSrc()[0]);
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

/// Result register r reads the source register holding the same element: the two
/// layouts place every coordinate the op keeps (all but expand_dims' new axis and
/// broadcast dimensions) on the same lanes and warps, so no data moves
/// (tile-assign-layouts gives expand_dims a slice of its result's layout as operand).
template <class Op> struct RemapRegisters : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename OpConversionPattern<Op>::OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto dstType = cast<RankedTensorType>(op.getType());
    ThreadLayout src = ThreadLayout::get(srcType), dst = ThreadLayout::get(dstType);
    SmallVector<int> dstToSrc;
    for (int d = 0; d < int(dstType.getRank()); ++d) {
      if constexpr (std::is_same_v<Op, ExpandDimsOp>)
        dstToSrc.push_back(d == int(op.getAxis()) ? -1 : d < int(op.getAxis()) ? d : d - 1);
      else dstToSrc.push_back(srcType.getDimSize(d) == dstType.getDimSize(d) ? d : -1);
    }
    SmallVector<unsigned> match = matchRegisters(src, dst, dstToSrc);
    if (match.empty())
      return op.emitOpError("lowering: the source layout ")
             << srcType.getEncoding() << " does not hold the result's elements on the threads of "
             << dstType.getEncoding() << " (a layout conversion is missing)";
    ValueRange in = adaptor.getSrc();
    SmallVector<Value> regs;
    for (unsigned r : match) regs.push_back(in[r]);
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

struct AddPtrLowering : OpConversionPattern<AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AddPtrOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type pointee = cast<PtrType>(getElementTypeOrSelf(op.getType())).getPointeeType();
    Type ptrType = getTypeConverter()->convertType(getElementTypeOrSelf(op.getType()));
    SmallVector<Value> regs;
    for (unsigned r = 0; r < regsOf(op.getType()); ++r)
      regs.push_back(LLVM::GEPOp::create(rewriter, op.getLoc(), ptrType, pointee, regOf(adaptor.getPtr(), r),
                                         ValueRange{regOf(adaptor.getOffset(), r)}));
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

/// Where the exchange keeps each element. A 2-D conversion uses a swizzled tile (16-byte
/// chunks of row r XORed with r's phase, as for ldmatrix): threads reading down a column
/// (a transpose) then hit different banks instead of one; anything else (reshapes,
/// other ranks) uses the row-major order both shapes share. Both come from the layouts'
/// linear maps, so any pair of distributed layouts converts.
std::pair<::tile::layout::LinearLayout, ::tile::layout::LinearLayout>
exchangeOffsets(const ThreadLayout &src, const ThreadLayout &dst, RankedTensorType srcType, RankedTensorType dstType,
                Type elem) {
  const bool tile2d =
      srcType.getShape() == dstType.getShape() && srcType.getRank() == 2 && elem.isIntOrFloat() && !elem.isInteger(1);
  if (tile2d) {
    const int64_t rows = srcType.getDimSize(0), cols = srcType.getDimSize(1);
    auto sw = ::tile::layout::ldmatrixSwizzle(cols, sharedBytesOf(elem));
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] layout exchange of " << srcType << " -> " << dstType << ": "
                            << (sw.maxPhase > 1 ? "swizzled tile" : "row-major (no swizzle fits the rows)") << "\n");
    if (sw.maxPhase > 1) {
      auto shared = ::tile::layout::swizzledShared(rows, cols, sw.vec, sw.perPhase, sw.maxPhase);
      return {::tile::layout::registersToOffsets(src.linear, shared),
              ::tile::layout::registersToOffsets(dst.linear, shared)};
    }
  }
  return {rowMajorOffsets(src), rowMajorOffsets(dst)};
}

/// Every thread writes its registers of `srcType` to the op's scratch at their row-major
/// index, then (after a barrier) reads the registers of `dstType` (same element count)
/// at theirs: a layout conversion when the shapes agree, a reshape when they do not.
/// Registers that are consecutive in memory move as one vector access. The barrier
/// before the writes, where earlier reads of the same bytes need one, is
/// tile-insert-barriers' job.
SmallVector<Value> exchangeThroughShared(ConversionPatternRewriter &rewriter, Operation *op, SharedMemory &smem,
                                         RankedTensorType srcType, ValueRange srcRegs, RankedTensorType dstType,
                                         Type elem) {
  Location loc = op->getLoc();
  ThreadLayout src = ThreadLayout::get(srcType), dst = ThreadLayout::get(dstType);
  Value base = smem.scratch(rewriter, loc, op, srcType.getNumElements() * sharedBytesOf(elem));
  auto [srcOffsets, dstOffsets] = exchangeOffsets(src, dst, srcType, dstType, elem);
  storeRegisters(rewriter, loc, base, src, srcOffsets, srcRegs, elem);
  emitProgramBarrier(rewriter, loc, op);
  return loadRegisters(rewriter, loc, base, dst, dstOffsets, elem);
}

/// convert_layout and reshape: both move elements through shared memory.
template <class Op> struct ExchangeLowering : OpConversionPattern<Op> {
  ExchangeLowering(TypeConverter &tc, MLIRContext *ctx, SharedMemory &smem)
      : OpConversionPattern<Op>(tc, ctx), smem(smem) {}
  SharedMemory &smem;

  LogicalResult matchAndRewrite(Op op, typename OpConversionPattern<Op>::OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    Type elem = this->getTypeConverter()->convertType(srcType.getElementType());
    rewriter.replaceOpWithMultiple(
        op, {exchangeThroughShared(rewriter, op, smem, srcType, adaptor.getSrc(), op.getType(), elem)});
    return success();
  }
};

} // namespace

void mlir::tile::populateShapeOpPatterns(TileTypeConverter &converter, RewritePatternSet &patterns,
                                         SharedMemory &smem) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ProgramIdLowering, NumProgramsLowering, MakeRangeLowering, SplatLowering, RemapRegisters<ExpandDimsOp>,
               RemapRegisters<BroadcastOp>, AddPtrLowering>(converter, ctx);
  patterns.add<ExchangeLowering<ConvertLayoutOp>, ExchangeLowering<ReshapeOp>>(converter, ctx, smem);
}
