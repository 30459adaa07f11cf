//===- ShapeOps.cpp - ids, ranges, splats, shape changes, pointers, layouts ===//
#include "SharedAccess.h"

#include "tile/Analysis/LayoutConversion.h"
#include "tile/Layout/SharedLayouts.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/Debug.h"

// The patterns of convert-tile-to-llvm: `tile-opt -debug-only=convert-tile-to-llvm`.
#define DEBUG_TYPE "convert-tile-to-llvm"

using namespace mlir;
using namespace mlir::tile;

namespace {

template <class Op> using Adaptor = typename OpConversionPattern<Op>::OneToNOpAdaptor;

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
    SmallVector<Value> regs(ThreadLayout::regsOf(op.getType()), adaptor.getSrc()[0]);
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
    for (unsigned r = 0; r < ThreadLayout::regsOf(op.getType()); ++r)
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

/// reshape: moves elements through shared memory.
struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  ReshapeLowering(TypeConverter &tc, MLIRContext *ctx, SharedMemory &smem) : OpConversionPattern(tc, ctx), smem(smem) {}
  SharedMemory &smem;

  LogicalResult matchAndRewrite(ReshapeOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    Type elem = getTypeConverter()->convertType(srcType.getElementType());
    rewriter.replaceOpWithMultiple(
        op, {exchangeThroughShared(rewriter, op, smem, srcType, adaptor.getSrc(), op.getType(), elem)});
    return success();
  }
};

/// A scalar as integer bits (a pointer as i64).
Value toBits(OpBuilder &b, Location loc, Value v) {
  Type t = v.getType();
  if (isa<LLVM::LLVMPointerType>(t)) return LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), v);
  if (isa<FloatType>(t)) return arith::BitcastOp::create(b, loc, b.getIntegerType(t.getIntOrFloatBitWidth()), v);
  return v;
}
Value fromBits(OpBuilder &b, Location loc, Value bits, Type t) {
  if (isa<LLVM::LLVMPointerType>(t)) return LLVM::IntToPtrOp::create(b, loc, t, bits);
  if (isa<FloatType>(t)) return arith::BitcastOp::create(b, loc, t, bits);
  return bits;
}
unsigned bitWidthOf(Type t) { return isa<LLVM::LLVMPointerType>(t) ? 64 : t.getIntOrFloatBitWidth(); }

/// shfl.sync.idx of `values` (scalars of type `elem`) from lane `srcLane`, moved as 32-bit
/// words: narrow values packed 32 / width to a word (lowest first), wider ones split into
/// words, so two f16 registers from the same lane cost one shuffle.
SmallVector<Value> shuffleFromLane(OpBuilder &b, Location loc, ArrayRef<Value> values, Type elem, Value srcLane) {
  IntBuilder ib{b, loc};
  Type i32 = b.getI32Type();
  auto shfl = [&](Value word) -> Value {
    return NVVM::ShflOp::create(b, loc, i32, ib.c(-1), word, srcLane, ib.c(0x1f), NVVM::ShflKind::idx, UnitAttr());
  };
  auto shiftedBy = [&](unsigned width, unsigned bits) { return arith::ConstantIntOp::create(b, loc, bits, width); };
  const unsigned width = bitWidthOf(elem);
  Type bitsType = b.getIntegerType(width);
  SmallVector<Value> out;
  if (width <= 32) {
    const unsigned perWord = 32 % width == 0 ? 32 / width : 1;
    for (size_t first = 0; first < values.size(); first += perWord) {
      const size_t n = std::min<size_t>(perWord, values.size() - first);
      Value word;
      for (size_t i = 0; i < n; ++i) {
        Value bits = toBits(b, loc, values[first + i]);
        Value part = width < 32 ? Value(arith::ExtUIOp::create(b, loc, i32, bits)) : bits;
        if (i) part = arith::ShLIOp::create(b, loc, part, shiftedBy(32, i * width));
        word = word ? Value(arith::OrIOp::create(b, loc, word, part)) : part;
      }
      Value got = shfl(word);
      for (size_t i = 0; i < n; ++i) {
        Value part = i ? Value(arith::ShRUIOp::create(b, loc, got, shiftedBy(32, i * width))) : got;
        if (width < 32) part = arith::TruncIOp::create(b, loc, bitsType, part);
        out.push_back(fromBits(b, loc, part, elem));
      }
    }
    return out;
  }
  const unsigned words = (width + 31) / 32;
  for (Value v : values) {
    Value bits = toBits(b, loc, v), joined;
    for (unsigned w = 0; w < words; ++w) {
      Value shifted = w ? Value(arith::ShRUIOp::create(b, loc, bits, shiftedBy(width, 32 * w))) : bits;
      Value got = arith::ExtUIOp::create(b, loc, bitsType, shfl(arith::TruncIOp::create(b, loc, i32, shifted)));
      if (w) got = arith::ShLIOp::create(b, loc, got, shiftedBy(width, 32 * w));
      joined = joined ? Value(arith::OrIOp::create(b, loc, joined, got)) : got;
    }
    out.push_back(fromBits(b, loc, joined, elem));
  }
  return out;
}

/// A warp-shuffle conversion (LayoutConversionPlan): every destination register whose
/// element another lane holds is read with shfl.sync.idx from that lane, registers from the
/// same source lane (the same constant part) in one batch; the rest are register picks.
SmallVector<Value> shuffleWithinWarps(OpBuilder &b, Location loc, const LayoutConversionPlan &plan, ValueRange src,
                                      Type elem, unsigned &shuffles) {
  IntBuilder ib{b, loc};
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value lane = ib.urem(tid, 32), warp = ib.udiv(tid, 32);
  // The lane-dependent part of the source lane, as a linear map (lane, warp) -> lane.
  auto bases = [](ArrayRef<int32_t> lanes) {
    std::vector<::tile::layout::LinearLayout::Basis> out;
    for (int32_t l : lanes) out.push_back({l});
    return out;
  };
  ::tile::layout::LinearLayout laneMap({{"lane", bases(plan.laneOfLaneBit)}, {"warp", bases(plan.laneOfWarpBit)}},
                                       {{"lane", 32}});
  Value lanePart = emitThreadPart(b, loc, laneMap, lane, warp, 0);

  const unsigned numRegs = plan.srcRegister.size();
  SmallVector<Value> out(numRegs);
  // Source lane constant -> the distinct source registers read from it, in first-use order.
  std::map<int32_t, SmallVector<unsigned>> batches;
  for (unsigned r = 0; r < numRegs; ++r) {
    if (plan.isLocal(r)) {
      out[r] = src[plan.srcRegister[r]];
      continue;
    }
    auto &regs = batches[plan.laneConst[r]];
    if (!llvm::is_contained(regs, plan.srcRegister[r])) regs.push_back(plan.srcRegister[r]);
  }
  shuffles = 0;
  for (auto &[laneConst, regs] : batches) {
    Value srcLane = laneConst ? Value(arith::XOrIOp::create(b, loc, lanePart, ib.c(laneConst))) : lanePart;
    SmallVector<Value> values;
    for (unsigned s : regs) values.push_back(src[s]);
    SmallVector<Value> got = shuffleFromLane(b, loc, values, elem, srcLane);
    const unsigned width = bitWidthOf(elem);
    shuffles +=
        width <= 32 && 32 % width == 0 ? (values.size() * width + 31) / 32 : values.size() * ((width + 31) / 32);
    for (unsigned r = 0; r < numRegs; ++r) {
      if (plan.isLocal(r) || plan.laneConst[r] != laneConst) continue;
      out[r] = got[llvm::find(regs, plan.srcRegister[r]) - regs.begin()];
    }
  }
  return out;
}

/// convert_layout, as planLayoutConversion (tile/Analysis/LayoutConversion.h) classifies
/// it: register picks, shfl.sync within warps, or the exchange through shared memory; the
/// passes asked the same question, so only the last has scratch and barriers.
struct ConvertLayoutLowering : OpConversionPattern<ConvertLayoutOp> {
  ConvertLayoutLowering(TypeConverter &tc, MLIRContext *ctx, SharedMemory &smem)
      : OpConversionPattern(tc, ctx), smem(smem) {}
  SharedMemory &smem;

  LogicalResult matchAndRewrite(ConvertLayoutOp op, OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto dstType = cast<RankedTensorType>(op.getType());
    Type elem = getTypeConverter()->convertType(srcType.getElementType());
    LayoutConversionPlan plan = planLayoutConversion(srcType, dstType);
    ValueRange src = adaptor.getSrc();
    SmallVector<Value> regs;
    unsigned shuffles = 0;
    switch (plan.kind) {
    case LayoutConversionKind::Registers:
      for (unsigned s : plan.srcRegister) regs.push_back(src[s]);
      break;
    case LayoutConversionKind::WarpShuffle:
      if (!elem.isIntOrFloat() && !isa<LLVM::LLVMPointerType>(elem))
        return op.emitOpError("lowering: cannot shuffle elements of ") << elem << " between lanes (a compiler bug)";
      regs = shuffleWithinWarps(rewriter, op.getLoc(), plan, src, elem, shuffles);
      break;
    case LayoutConversionKind::SharedMemory:
      regs = exchangeThroughShared(rewriter, op, smem, srcType, src, dstType, elem);
      break;
    }
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] tile.convert_layout at " << op.getLoc() << ": "
                            << stringifyLayoutConversionKind(plan.kind)
                            << (plan.kind == LayoutConversionKind::WarpShuffle
                                    ? " (" + std::to_string(shuffles) + " shfl.sync per thread)"
                                    : "")
                            << (plan.reason.empty() ? "" : " (" + plan.reason + ")") << "\n");
    rewriter.replaceOpWithMultiple(op, {regs});
    return success();
  }
};

} // namespace

void mlir::tile::populateShapeOpPatterns(TileTypeConverter &converter, RewritePatternSet &patterns,
                                         SharedMemory &smem) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ProgramIdLowering, NumProgramsLowering, MakeRangeLowering, SplatLowering, RemapRegisters<ExpandDimsOp>,
               RemapRegisters<BroadcastOp>, AddPtrLowering>(converter, ctx);
  patterns.add<ConvertLayoutLowering, ReshapeLowering>(converter, ctx, smem);
}
