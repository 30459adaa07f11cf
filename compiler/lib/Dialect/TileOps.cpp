//===- TileOps.cpp - verifiers and folders of tile ops --------------------===//
#include "tile/Dialect/Tile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::tile;

/// A type that is a !tile.memdesc (written without its prefix, as ODS writes operand types
/// of a known class) or any other type written out (tile.warpgroup_dot's a: a buffer or a
/// register tensor).
static ParseResult parseBufferOrTensor(OpAsmParser &parser, Type &type) {
  OptionalParseResult full = parser.parseOptionalType(type);
  if (full.has_value()) return *full;
  type = MemDescType::parse(parser);
  return success(type != nullptr);
}

static void printBufferOrTensor(OpAsmPrinter &printer, Operation *, Type type) {
  if (auto buffer = dyn_cast<MemDescType>(type)) return printer.printStrippedAttrOrType(buffer);
  printer.printType(type);
}

#define GET_OP_CLASSES
#include "tile/Dialect/TileOps.cpp.inc"

/// Shape of a scalar is empty.
static ArrayRef<int64_t> shapeOf(Type t) {
  if (auto rt = dyn_cast<RankedTensorType>(t)) return rt.getShape();
  return {};
}

LogicalResult MakeRangeOp::verify() {
  int64_t start = getStart(), end = getEnd();
  auto type = getType();
  if (type.getRank() != 1) return emitOpError("result must be 1-D");
  if (end <= start) return emitOpError("end (") << end << ") must exceed start (" << start << ")";
  if (type.getDimSize(0) != end - start)
    return emitOpError("result has ") << type.getDimSize(0) << " elements, range has " << end - start;
  int64_t n = end - start;
  if (n & (n - 1)) return emitOpError("range size must be a power of two, got ") << n;
  return success();
}

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  if (auto c = dyn_cast_or_null<TypedAttr>(adaptor.getSrc()))
    if (isa<IntegerType, FloatType>(c.getType())) return DenseElementsAttr::get(cast<ShapedType>(getType()), c);
  return {};
}

LogicalResult ExpandDimsOp::verify() {
  auto src = getSrc().getType();
  auto res = getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis > src.getRank()) return emitOpError("axis ") << axis << " out of range";
  SmallVector<int64_t> expect(src.getShape());
  expect.insert(expect.begin() + axis, 1);
  if (res.getShape() != ArrayRef<int64_t>(expect)) return emitOpError("result shape mismatch");
  if (res.getElementType() != src.getElementType()) return emitOpError("element type mismatch");
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType().getShape();
  auto res = getType().getShape();
  if (src.size() != res.size()) return emitOpError("rank must not change");
  for (size_t d = 0; d < src.size(); ++d)
    if (src[d] != res[d] && src[d] != 1)
      return emitOpError("dimension ") << d << " of size " << src[d] << " cannot broadcast to " << res[d];
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType()) return getSrc();
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getSrc()))
    return splat.resizeSplat(cast<ShapedType>(getType()));
  return {};
}

OpFoldResult AddPtrOp::fold(FoldAdaptor adaptor) {
  if (matchPattern(adaptor.getOffset(), m_Zero())) return getPtr();
  return {};
}

/// Checks shared by load/store/atomic: mask and value shapes follow the pointer's.
static LogicalResult verifyMemOp(Operation *op, Type ptrType, Type valueType, Value mask) {
  auto ptrElem = dyn_cast<PtrType>(getElementTypeOrSelf(ptrType));
  if (!ptrElem) return op->emitOpError("address operand must be a pointer or tensor of pointers");
  if (shapeOf(ptrType) != shapeOf(valueType) || isa<RankedTensorType>(ptrType) != isa<RankedTensorType>(valueType))
    return op->emitOpError("value shape must match the pointer shape");
  if (getElementTypeOrSelf(valueType) != ptrElem.getPointeeType())
    return op->emitOpError("value element type ")
           << getElementTypeOrSelf(valueType) << " differs from pointee type " << ptrElem.getPointeeType();
  if (mask && (shapeOf(mask.getType()) != shapeOf(ptrType) ||
               isa<RankedTensorType>(mask.getType()) != isa<RankedTensorType>(ptrType)))
    return op->emitOpError("mask shape must match the pointer shape");
  return success();
}

/// A load's or store's descriptor box (`box %desc[%offsets]`, optional): a masked tensor access
/// of the descriptor's rank and element type, one offset per dimension.
static LogicalResult verifyBox(Operation *op, Value desc, ValueRange offsets, Type accessed, Value mask,
                               StringRef what) {
  if (!desc) {
    if (!offsets.empty()) return op->emitOpError("box offsets without a descriptor");
    return success();
  }
  auto d = cast<TensorDescType>(desc.getType());
  auto t = dyn_cast<RankedTensorType>(accessed);
  if (!t || t.getRank() != d.getRank() || t.getElementType() != d.getElementType() || offsets.size() != d.getRank() ||
      !mask)
    return op->emitOpError("a descriptor box needs a masked tensor ")
           << what << " of the descriptor's rank and element type, one offset per dimension";
  return success();
}

LogicalResult LoadOp::verify() {
  if (getOther() && !getMask()) return emitOpError("'other' needs a mask");
  if (getOther() && getOther().getType() != getType()) return emitOpError("'other' must have the result type");
  if (failed(verifyBox(*this, getDesc(), getDescOffsets(), getType(), getMask(), "load"))) return failure();
  return verifyMemOp(*this, getPtr().getType(), getType(), getMask());
}

LogicalResult DescriptorBaseOp::verify() {
  if (getType().getPointeeType() != getDesc().getType().getElementType())
    return emitOpError("the base points at the descriptor's element type");
  return success();
}

LogicalResult DescriptorDimOp::verify() {
  if (unsigned(getDim()) >= getDesc().getType().getRank()) return emitOpError("dimension out of range");
  return success();
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

/// mbarrier counts (expected arrivals, transaction bytes) are 20-bit.
static constexpr int64_t kMaxBarrierCount = (int64_t(1) << 20) - 1;

/// Whether `t` is mbarriers in shared memory: 8-byte (i64) slots of an unswizzled tile, one
/// per stage (`ring`: !tile.memdesc<Sx1x1xi64>) or one (!tile.memdesc<1x1xi64>).
static LogicalResult verifyBarrierType(Operation *op, MemDescType t, bool ring, StringRef operand) {
  ArrayRef<int64_t> shape = t.getShape();
  const bool shapeOk = ring ? shape.size() == 3 && shape[1] == 1 && shape[2] == 1 : shape == ArrayRef<int64_t>{1, 1};
  if (!shapeOk || !t.getElementType().isInteger(64) || !isa<SwizzledSharedLayoutAttr>(t.getEncoding()))
    return op->emitOpError() << operand << " must be "
                             << (ring ? "a ring of mbarriers, !tile.memdesc<Sx1x1xi64, #tile.swizzled_shared<...>>"
                                      : "one mbarrier, !tile.memdesc<1x1xi64, #tile.swizzled_shared<...>>")
                             << ", got " << t;
  return success();
}

LogicalResult InitBarriersOp::verify() {
  if (failed(verifyBarrierType(*this, getBars().getType(), /*ring=*/true, "'bars'"))) return failure();
  if (getCount() > kMaxBarrierCount)
    return emitOpError("count must be at most ") << kMaxBarrierCount << " (20 bits), got " << getCount();
  return success();
}

LogicalResult InvalidateBarriersOp::verify() {
  return verifyBarrierType(*this, getBars().getType(), /*ring=*/true, "'bars'");
}

LogicalResult BarrierExpectOp::verify() {
  if (failed(verifyBarrierType(*this, getBar().getType(), /*ring=*/false, "'bar'"))) return failure();
  if (getBytes() > kMaxBarrierCount)
    return emitOpError("bytes must be at most ") << kMaxBarrierCount << " (20 bits), got " << getBytes();
  return success();
}

LogicalResult BarrierWaitOp::verify() { return verifyBarrierType(*this, getBar().getType(), false, "'bar'"); }

LogicalResult BarrierArriveOp::verify() { return verifyBarrierType(*this, getBar().getType(), false, "'bar'"); }

LogicalResult AsyncTmaLoadOp::verify() {
  if (failed(verifyBarrierType(*this, getBar().getType(), /*ring=*/false, "'bar'"))) return failure();
  if (getCoords().size() != getDesc().getType().getRank()) return emitOpError("needs one coordinate per dimension");
  if (getDst().getType().getElementType() != getDesc().getType().getElementType())
    return emitOpError("the buffer holds the descriptor's element type");
  if (!isa<NvmmaSharedLayoutAttr>(getDst().getType().getEncoding()))
    return emitOpError("copies into an #tile.nvmma_shared buffer");
  return success();
}

LogicalResult WarpSpecializeOp::verify() {
  const int64_t warps = getConsumerWarps();
  if (warps % 4 || warps + 4 > 32)
    return emitOpError("needs whole consumer warpgroups and at most 32 warps with the producer's 4, got ")
           << warps << " consumer warps";
  for (int64_t regs : {int64_t(getProducerRegisters()), int64_t(getConsumerRegisters())})
    if (regs && (regs < 24 || regs > 256 || regs % 8))
      return emitOpError("register counts are 0 (unchanged) or multiples of 8 from 24 to 256, got ") << regs;
  WalkResult tensors = getProducer().walk([](Operation *op) {
    return llvm::any_of(op->getResultTypes(), [](Type t) { return isa<RankedTensorType>(t); }) ? WalkResult::interrupt()
                                                                                               : WalkResult::advance();
  });
  if (tensors.wasInterrupted()) return emitOpError("the producer region computes no tensors (one warp runs it)");
  return success();
}

/// A turn op's rule: in a tile.warp_specialize op's consumers, one turn per consumer
/// warpgroup, `only` one of them.
static LogicalResult verifyTurn(Operation *op, int64_t groups, std::optional<int32_t> only) {
  if (only && (*only < 0 || *only >= groups))
    return op->emitOpError("'only' names one of the ") << groups << " warpgroups, got " << *only;
  auto split = op->getParentOfType<WarpSpecializeOp>();
  if (!split || !split.getConsumers().isAncestor(op->getParentRegion()))
    return op->emitOpError("orders the consumer warpgroups of a tile.warp_specialize op: it belongs in its consumers");
  if (int64_t(split.getConsumerWarps()) != 4 * groups)
    return op->emitOpError("takes turns among all ")
           << split.getConsumerWarps() / 4 << " consumer warpgroups, got " << groups << " groups";
  return success();
}

LogicalResult TurnWaitOp::verify() { return verifyTurn(*this, getGroups(), getOnly()); }
LogicalResult TurnPassOp::verify() { return verifyTurn(*this, getGroups(), getOnly()); }

LogicalResult StoreOp::verify() {
  if (failed(verifyBox(*this, getDesc(), getDescOffsets(), getValue().getType(), getMask(), "store"))) return failure();
  return verifyMemOp(*this, getPtr().getType(), getValue().getType(), getMask());
}

LogicalResult AsyncTmaStoreOp::verify() {
  MemDescType src = getSrc().getType();
  if (getCoords().size() != getDesc().getType().getRank() || src.getRank() != 2 || getCoords().size() != 2)
    return emitOpError("copies one 2-D buffer to a block of a rank-2 descriptor");
  if (src.getElementType() != getDesc().getType().getElementType())
    return emitOpError("the buffer holds the descriptor's element type");
  auto nvmma = dyn_cast<NvmmaSharedLayoutAttr>(src.getEncoding());
  if (!nvmma || nvmma.getTransposed()) return emitOpError("copies from an untransposed #tile.nvmma_shared buffer");
  if (getAdd() && !isa<Float32Type, Float16Type, BFloat16Type>(src.getElementType()))
    return emitOpError("adds f32, f16 or bf16 blocks");
  return success();
}

LogicalResult AtomicRMWOp::verify() {
  if (getValue().getType() != getType()) return emitOpError("result type must match the value type");
  if (getDesc() && getKind() != AtomicKind::Add) return emitOpError("only an add names a descriptor block");
  if (failed(verifyBox(*this, getDesc(), getDescOffsets(), getValue().getType(), getMask(), "atomic add")))
    return failure();
  Type elem = getElementTypeOrSelf(getValue().getType());
  const bool isFloat = isa<FloatType>(elem),
             bitwise = getKind() == AtomicKind::And || getKind() == AtomicKind::Or || getKind() == AtomicKind::Xor;
  if (elem.isInteger(1)) return emitOpError("no atomics on i1");
  if (isFloat && bitwise) return emitOpError(stringifyAtomicKind(getKind())) << " needs integers, got " << elem;
  if (elem.getIntOrFloatBitWidth() < 32 && getKind() != AtomicKind::Add)
    return emitOpError(stringifyAtomicKind(getKind())) << " needs 32- or 64-bit elements, got " << elem;
  return verifyMemOp(*this, getPtr().getType(), getValue().getType(), getMask());
}

LogicalResult AtomicCASOp::verify() {
  Type elem = getElementTypeOrSelf(getValue().getType());
  if (elem.getIntOrFloatBitWidth() < 32) return emitOpError("needs 32- or 64-bit elements, got ") << elem;
  return verifyMemOp(*this, getPtr().getType(), getValue().getType(), getMask());
}

LogicalResult ReduceOp::verify() {
  auto src = getSrc().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= src.getRank()) return emitOpError("axis ") << axis << " out of range";
  bool isArg = getKind() == ReduceKind::ArgMax || getKind() == ReduceKind::ArgMin;
  Type elem = isArg ? Type(IntegerType::get(getContext(), 32)) : src.getElementType();
  if (isa<PtrType>(src.getElementType())) return emitOpError("cannot reduce pointers");
  Type res = getType();
  if (getElementTypeOrSelf(res) != elem) return emitOpError("result element type must be ") << elem;
  SmallVector<int64_t> expect(src.getShape());
  expect.erase(expect.begin() + axis);
  if (shapeOf(res) != ArrayRef<int64_t>(expect) || (expect.empty() && isa<RankedTensorType>(res)))
    return emitOpError("result shape must drop the reduced axis");
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getType()) return getSrc();
  // convert(convert(x : L -> M) : M -> L) is x.
  if (auto inner = getSrc().getDefiningOp<ConvertLayoutOp>(); inner && inner.getSrc().getType() == getType())
    return inner.getSrc();
  return {};
}

namespace {
/// convert(convert(x)) converts x once; the inner conversion goes when nothing else uses it.
struct FoldConvertChain : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp cvt, PatternRewriter &rewriter) const override {
    auto inner = cvt.getSrc().getDefiningOp<ConvertLayoutOp>();
    if (!inner) return failure();
    rewriter.modifyOpInPlace(cvt, [&] { cvt.getSrcMutable().assign(inner.getSrc()); });
    if (inner->use_empty()) rewriter.eraseOp(inner);
    return success();
  }
};
} // namespace

void ConvertLayoutOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<FoldConvertChain>(context);
}

LogicalResult DotOp::verify() {
  auto a = getA().getType(), b = getB().getType(), acc = getAcc().getType();
  if (a.getRank() != 2 || b.getRank() != 2 || acc.getRank() != 2)
    return emitOpError("operands must be 2-D, got ranks ")
           << a.getRank() << ", " << b.getRank() << ", " << acc.getRank();
  if (a.getDimSize(1) != b.getDimSize(0))
    return emitOpError("inner dimensions differ: a is ")
           << a.getDimSize(0) << "x" << a.getDimSize(1) << ", b is " << b.getDimSize(0) << "x" << b.getDimSize(1);
  if (acc.getDimSize(0) != a.getDimSize(0) || acc.getDimSize(1) != b.getDimSize(1))
    return emitOpError("accumulator must be ")
           << a.getDimSize(0) << "x" << b.getDimSize(1) << ", got " << acc.getDimSize(0) << "x" << acc.getDimSize(1);
  Type elem = a.getElementType();
  if (elem != b.getElementType()) return emitOpError("a and b must have one element type");
  if (!isa<Float16Type, BFloat16Type, Float32Type>(elem)) return emitOpError("inputs must be f16, bf16 or f32");
  if (!acc.getElementType().isF32()) return emitOpError("accumulator must be f32");
  if (getInputPrecision() == InputPrecision::TF32 && !elem.isF32())
    return emitOpError("tf32 input precision needs f32 inputs");
  return success();
}

LogicalResult WarpGroupDotOp::verify() {
  MemDescType b = getB().getType();
  auto acc = getAcc().getType();
  auto aBuffer = dyn_cast<MemDescType>(getA().getType());
  auto aTensor = dyn_cast<RankedTensorType>(getA().getType());
  ArrayRef<int64_t> aShape = aBuffer ? aBuffer.getShape() : aTensor.getShape();
  if (aShape.size() != 2 || b.getRank() != 2 || acc.getRank() != 2)
    return emitOpError("operands must be one 2-D buffer or register tile for a, a 2-D buffer for b and a 2-D "
                       "accumulator");
  if (aShape[1] != b.getShape()[0] || acc.getDimSize(0) != aShape[0] || acc.getDimSize(1) != b.getShape()[1])
    return emitOpError("shapes must be [M, K] * [K, N] -> [M, N], got ")
           << aShape[0] << "x" << aShape[1] << " * " << b.getShape()[0] << "x" << b.getShape()[1] << " -> "
           << acc.getDimSize(0) << "x" << acc.getDimSize(1);
  Type elem = aBuffer ? aBuffer.getElementType() : aTensor.getElementType();
  if (elem != b.getElementType() || !isa<Float16Type, BFloat16Type, Float32Type>(elem))
    return emitOpError("operands must both be f16, both bf16 or both f32 (tf32)");
  if (!acc.getElementType().isF32()) return emitOpError("accumulator must be f32");
  auto nvmmaB = dyn_cast<NvmmaSharedLayoutAttr>(b.getEncoding());
  auto nvmmaA = aBuffer ? dyn_cast<NvmmaSharedLayoutAttr>(aBuffer.getEncoding()) : NvmmaSharedLayoutAttr();
  if ((aBuffer && !nvmmaA) || !nvmmaB) return emitOpError("operands must be #tile.nvmma_shared buffers");
  // wgmma transposes (reads MN-major) 16-bit operands only.
  if (elem.isF32() && ((nvmmaA && nvmmaA.getTransposed()) || !nvmmaB.getTransposed()))
    return emitOpError("f32 (tf32) operands must be K-major: a untransposed, b transposed");
  auto mma = dyn_cast_or_null<MmaLayoutAttr>(acc.getEncoding());
  if (!mma || mma.getWarpsPerCTA().size() != 2 || mma.getWarpsPerCTA()[1] != 1 || mma.getWarpsPerCTA()[0] % 4)
    return emitOpError("accumulator must be #tile.mma with warpsPerCTA = [4 x warpgroups, 1]");
  if (aTensor) {
    // wgmma's register a: f16/bf16 pairs in exactly mma.sync m16n8k16's A fragments.
    if (elem.isF32()) return emitOpError("a in registers must be f16 or bf16 (wgmma reads tf32 a from shared memory)");
    auto operand = dyn_cast_or_null<DotOperandLayoutAttr>(aTensor.getEncoding());
    if (!operand || operand.getOpIdx() != 0 || operand.getParent() != mma)
      return emitOpError("a in registers must be in #tile.dot_operand<opIdx = 0, parent = ")
             << mma << ">, the accumulator's layout, got " << aTensor.getEncoding();
  }
  const int64_t m = acc.getDimSize(0), n = acc.getDimSize(1), k = aShape[1];
  const int64_t slab = 16 * mma.getWarpsPerCTA()[0];
  const int64_t kStep = elem.isF32() ? 8 : 16;
  if (m % slab || n % 8 || n > 256 || k % kStep)
    return emitOpError("needs M a multiple of ")
           << slab << ", N a multiple of 8 up to 256 and K of " << kStep << ", got " << m << "x" << n << "x" << k;
  return success();
}

LogicalResult TransOp::verify() {
  auto src = getSrc().getType();
  ArrayRef<int32_t> order = getOrder();
  if (int64_t(order.size()) != src.getRank()) return emitOpError("order must list ") << src.getRank() << " dimensions";
  SmallVector<bool> seen(order.size(), false);
  SmallVector<int64_t> expect;
  for (int32_t d : order) {
    if (d < 0 || d >= src.getRank() || seen[d]) return emitOpError("order must be a permutation of the dimensions");
    seen[d] = true;
    expect.push_back(src.getDimSize(d));
  }
  if (getType().getShape() != ArrayRef<int64_t>(expect)) return emitOpError("result shape does not follow the order");
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (getSrc().getType().getNumElements() != getType().getNumElements())
    return emitOpError("element count changes from ")
           << getSrc().getType().getNumElements() << " to " << getType().getNumElements();
  return success();
}

//===----------------------------------------------------------------------===//
// Shared-memory ops
//===----------------------------------------------------------------------===//

/// A tensor and a buffer hold the same elements: shape and element type agree.
static LogicalResult matchesBuffer(Operation *op, RankedTensorType t, MemDescType m, StringRef what) {
  if (t.getShape() != m.getShape() || t.getElementType() != m.getElementType())
    return op->emitOpError() << what << " " << t << " does not match the buffer " << m;
  return success();
}

LogicalResult LocalAllocOp::verify() {
  if (getRoundTf32() && (!getSrc() || !getType().getElementType().isF32()))
    return emitOpError("round_tf32 needs an f32 source");
  if (!getSrc()) return success();
  return matchesBuffer(*this, getSrc().getType(), getType(), "source");
}

LogicalResult LocalLoadOp::verify() {
  if (!getOffsets()) return matchesBuffer(*this, getType(), getSrc().getType(), "result");
  ArrayRef<int64_t> offsets = *getOffsets();
  MemDescType src = getSrc().getType();
  auto window = getType().getShape();
  if (getType().getElementType() != src.getElementType() || window.size() != size_t(src.getRank()) ||
      offsets.size() != window.size())
    return emitOpError("a window needs the buffer's rank and element type and one offset per dimension");
  for (size_t d = 0; d < window.size(); ++d)
    if (offsets[d] < 0 || offsets[d] % window[d] || offsets[d] + window[d] > src.getShape()[d])
      return emitOpError("window offset ")
             << offsets[d] << " along dimension " << d << " must be a multiple of the window extent " << window[d]
             << " inside the buffer's " << src.getShape()[d];
  return success();
}

LogicalResult LocalStoreOp::verify() {
  return matchesBuffer(*this, getSrc().getType(), getDst().getType(), "stored tensor");
}

LogicalResult MemDescIndexOp::verify() {
  MemDescType src = getSrc().getType(), res = getType();
  if (src.getRank() != res.getRank() + 1 || src.getShape().drop_front() != res.getShape() ||
      src.getElementType() != res.getElementType() || src.getEncoding() != res.getEncoding())
    return emitOpError("result must be one buffer of the ring ") << src << ", got " << res;
  return success();
}

MemDescType MemDescTransOp::transposedType(MemDescType src) {
  Attribute encoding = src.getEncoding();
  if (auto nvmma = dyn_cast<NvmmaSharedLayoutAttr>(encoding))
    encoding = NvmmaSharedLayoutAttr::get(src.getContext(), nvmma.getSwizzle(), !nvmma.getTransposed());
  else if (auto swizzled = dyn_cast<SwizzledSharedLayoutAttr>(encoding))
    encoding = SwizzledSharedLayoutAttr::get(src.getContext(), swizzled.getVec(), swizzled.getPerPhase(),
                                             swizzled.getMaxPhase(), {swizzled.getOrder()[1], swizzled.getOrder()[0]});
  return MemDescType::get(src.getContext(), {src.getShape()[1], src.getShape()[0]}, src.getElementType(), encoding);
}

LogicalResult MemDescTransOp::verify() {
  MemDescType src = getSrc().getType();
  if (src.getRank() != 2) return emitOpError("transposes one 2-D buffer, not a ring");
  if (getType() != transposedType(src))
    return emitOpError("result must be ") << transposedType(src) << ", got " << getType();
  return success();
}

LogicalResult AsyncCopyOp::verify() {
  auto ptrs = getPtrs().getType();
  MemDescType dst = getDst().getType();
  Type pointee = cast<PtrType>(ptrs.getElementType()).getPointeeType();
  if (ptrs.getShape() != dst.getShape() || pointee != dst.getElementType())
    return emitOpError("pointers ") << ptrs << " do not match the buffer " << dst;
  if (getMask() && getMask().getType().getShape() != ptrs.getShape())
    return emitOpError("mask shape must match the pointers");
  return success();
}
