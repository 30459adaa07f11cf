//===- ShapeOps.cpp - ids, ranges, splats, shape changes, pointers, layouts ===//
#include "TileToLLVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

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
    unsigned dim = layout.tensorDims()[0];
    SmallVector<Value> regs;
    for (unsigned r = 0; r < layout.numRegs(); ++r) {
      Value c = emitCoord(rewriter, loc, layout, pos, r, dim);
      regs.push_back(op.getStart() ? ib.add(c, ib.c(op.getStart())) : c);
    }
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

struct SplatLowering : OpConversionPattern<SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SplatOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> regs(regsOf(op.getType()), adaptor.getSrc()[0]);
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

/// Result register r reads the source register at the same per-dimension index; the
/// register-number mapping ignores size-1 (broadcast) and sliced dimensions.
template <class Op> struct RemapRegisters : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op op, typename OpConversionPattern<Op>::OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    ThreadLayout src = ThreadLayout::get(cast<RankedTensorType>(op.getSrc().getType()));
    ThreadLayout dst = ThreadLayout::get(cast<RankedTensorType>(op.getType()));
    if (src.parentRank() != dst.parentRank()) return rewriter.notifyMatchFailure(op, "layouts of different rank");
    ValueRange in = adaptor.getSrc();
    SmallVector<Value> regs;
    for (unsigned r = 0; r < dst.numRegs(); ++r) regs.push_back(in[src.regNumber(dst.regIndex(r))]);
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

struct AddPtrLowering : OpConversionPattern<AddPtrOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AddPtrOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
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

/// Row-major indices of a layout's registers in a tensor of its shape, from the layout
/// flattened to one dimension: the lane's and warp's part is computed once per thread,
/// each register adds a constant. Where those bits cannot overlap (every layout but a
/// swizzled one) the constant is added, so it folds into the access's immediate offset.
class RowMajorIndexer {
public:
  RowMajorIndexer(OpBuilder &b, Location loc, const ThreadLayout &l, const ThreadPosition &pos)
      : flat(l.linear.flattenOuts()), base(emitThreadPart(b, loc, flat, pos.lane, pos.warp, 0, &threadBits)) {}

  Value index(OpBuilder &b, Location loc, unsigned r) const {
    IntBuilder ib{b, loc};
    int32_t own = registerPart(flat, r, 0);
    if (!own) return base;
    if (own & threadBits) return arith::XOrIOp::create(b, loc, base, ib.c(own));
    return ib.add(base, ib.c(own));
  }

private:
  ::tile::layout::LinearLayout flat;
  int32_t threadBits = 0;
  Value base;
};

/// Elements one shared-memory access of `l` can move: the largest v (a power of two,
/// at most 16 bytes) such that register bits 0 .. log2(v)-1 step the last dimension by
/// 1, 2, 4, ... and no other basis touches those low bits of it. Then registers r .. r+v-1
/// (r a multiple of v) are v consecutive, v-aligned elements in row-major order.
unsigned sharedVectorWidth(const ThreadLayout &l, Type elem) {
  if (!elem.isIntOrFloat()) return 1;
  const auto &ll = l.linear;
  const int last = ll.getNumOutDims() - 1;
  const int regBits = ll.getInDimSizeLog2("register");
  const unsigned maxWidth = std::max(1u, 16 / sharedBytesOf(elem));
  unsigned bits = 0;
  while ((2u << bits) <= maxWidth && int(bits) < regBits) {
    const auto &basis = ll.getBasis("register", bits);
    bool stepsLast = true;
    for (int d = 0; d < ll.getNumOutDims(); ++d) stepsLast &= basis[d] == (d == last ? (1 << bits) : 0);
    if (!stepsLast) break;
    ++bits;
  }
  const int32_t lowMask = (1 << bits) - 1;
  for (const auto &[name, list] : ll.getBases())
    for (size_t i = 0; i < list.size(); ++i)
      if (!(name == "register" && i < bits) && (list[i][last] & lowMask)) return 1;
  return 1u << bits;
}

/// Every thread writes its registers of `srcType` to shared memory at their row-major
/// index, then reads the registers of `dstType` (same element count) at theirs: a
/// layout conversion when the shapes agree, a reshape when they do not. Registers that
/// are consecutive in memory move as one vector access.
SmallVector<Value> exchangeThroughShared(ConversionPatternRewriter &rewriter, Location loc, SharedMemory &smem,
                                         RankedTensorType srcType, ValueRange srcRegs, RankedTensorType dstType,
                                         Type elem) {
  ThreadLayout src = ThreadLayout::get(srcType), dst = ThreadLayout::get(dstType);
  Type storage = sharedStorageType(elem);
  const unsigned bytes = sharedBytesOf(elem);
  Value base = smem.base(rewriter, loc, srcType.getNumElements() * bytes);
  auto c32 = [&](int64_t v) { return LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), v); };
  NVVM::Barrier0Op::create(rewriter, loc);
  RowMajorIndexer srcIndex(rewriter, loc, src, emitThreadPosition(rewriter, loc, src));
  const unsigned vs = sharedVectorWidth(src, elem);
  for (unsigned r = 0; r < src.numRegs(); r += vs) {
    Value ptr = sharedElementPtr(rewriter, loc, base, elem, srcIndex.index(rewriter, loc, r));
    if (vs == 1) {
      LLVM::StoreOp::create(rewriter, loc, toShared(rewriter, loc, srcRegs[r]), ptr);
      continue;
    }
    Value v = LLVM::UndefOp::create(rewriter, loc, VectorType::get({vs}, storage));
    for (unsigned i = 0; i < vs; ++i)
      v = LLVM::InsertElementOp::create(rewriter, loc, v, toShared(rewriter, loc, srcRegs[r + i]), c32(i));
    LLVM::StoreOp::create(rewriter, loc, v, ptr, vs * bytes);
  }
  NVVM::Barrier0Op::create(rewriter, loc);
  RowMajorIndexer dstIndex(rewriter, loc, dst, emitThreadPosition(rewriter, loc, dst));
  const unsigned vd = sharedVectorWidth(dst, elem);
  SmallVector<Value> regs;
  for (unsigned r = 0; r < dst.numRegs(); r += vd) {
    Value ptr = sharedElementPtr(rewriter, loc, base, elem, dstIndex.index(rewriter, loc, r));
    if (vd == 1) {
      regs.push_back(fromShared(rewriter, loc, LLVM::LoadOp::create(rewriter, loc, storage, ptr), elem));
      continue;
    }
    Value v = LLVM::LoadOp::create(rewriter, loc, VectorType::get({vd}, storage), ptr, vd * bytes);
    for (unsigned i = 0; i < vd; ++i)
      regs.push_back(fromShared(rewriter, loc, LLVM::ExtractElementOp::create(rewriter, loc, v, c32(i)), elem));
  }
  return regs;
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
    rewriter.replaceOpWithMultiple(op, {exchangeThroughShared(rewriter, op.getLoc(), smem, srcType, adaptor.getSrc(),
                                                              op.getType(), elem)});
    return success();
  }
};

} // namespace

void mlir::tile::populateShapeOpPatterns(TileTypeConverter &converter, RewritePatternSet &patterns,
                                         SharedMemory &smem) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ProgramIdLowering, NumProgramsLowering, MakeRangeLowering, SplatLowering,
               RemapRegisters<ExpandDimsOp>, RemapRegisters<BroadcastOp>, AddPtrLowering>(converter, ctx);
  patterns.add<ExchangeLowering<ConvertLayoutOp>, ExchangeLowering<ReshapeOp>>(converter, ctx, smem);
}
