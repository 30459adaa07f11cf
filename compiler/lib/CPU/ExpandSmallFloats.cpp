//===- ExpandSmallFloats.cpp - f16/bf16 as integer code for the CPU executor ===//
// LLVM's x86 backend turns half and bfloat arithmetic and conversions into calls to
// compiler-rt/libgcc helpers (__truncsfhf2, __extendhfsf2, __truncsfbf2, __truncdfhf2,
// ...) on CPUs without F16C/AVX512-BF16/AVX512-FP16, and into host instructions where
// they exist (some of which flush denormals). Neither is acceptable for an executor
// that must give the GPU's answers on every x86-64 host. So before the LLVM dialect:
//  1. arithmetic on f16/bf16 is computed in f32 (exact for + - * / then one rounding:
//     f32 carries more than 2p+2 bits of either type), via arith's own emulation;
//  2. every conversion to or from f16/bf16 becomes integer code written here, rounding
//     to nearest even directly from the source type (no double rounding through f32),
//     keeping denormals, turning NaN into a quiet NaN and overflow into infinity —
//     the semantics of PTX's cvt.rn;
//  3. what is left only moves f16/bf16 values (memory, vectors, selects, control flow),
//     and every such value becomes its 16 bits, an i16. Leaving them typed half/bfloat
//     is not enough: LLVM's InstCombine turns integer code on a bfloat's bits into float
//     operations (`bits & 0x7fff` of a gathered bfloat becomes llvm.fabs), which the x86
//     backend then computes in f32 and rounds back through __truncsfbf2. With no f16/bf16
//     type left, LLVM has nothing to compute on in them.
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Debug.h"

#include <cmath>

#define DEBUG_TYPE "tile-cpu-expand-small-floats"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECPUEXPANDSMALLFLOATS
#include "tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {

bool isSmallFloat(Type t) { return isa<Float16Type, BFloat16Type>(getElementTypeOrSelf(t)); }

/// One line of -debug-only=tile-cpu-expand-small-floats: what `op` became.
void logRewrite(Operation *op, const char *how) {
  LLVM_DEBUG(llvm::dbgs() << "[tile-cpu-expand-small-floats] " << op->getName() << " " << op->getResultTypes() << " at "
                          << op->getLoc() << ": " << how << "\n");
  (void)op, (void)how;
}

/// Bit layout of an IEEE binary format.
struct FloatFormat {
  unsigned width, mantissa, exponent;
  int64_t bias() const { return (int64_t(1) << (exponent - 1)) - 1; }
  uint64_t expMask() const { return ((uint64_t(1) << exponent) - 1) << mantissa; } ///< also the bits of +inf
  uint64_t mantMask() const { return (uint64_t(1) << mantissa) - 1; }
  static FloatFormat of(Type t) {
    auto f = cast<FloatType>(getElementTypeOrSelf(t));
    unsigned m = f.getFPMantissaWidth() - 1; // without the implicit bit
    return {f.getWidth(), m, f.getWidth() - 1 - m};
  }
};

/// Builds integer and float values of the shape of `like` (a scalar or a vector).
struct ShapedBuilder {
  PatternRewriter &b;
  Location loc;
  Type like;

  Type withElem(Type elem) const {
    if (auto v = dyn_cast<VectorType>(like)) return v.clone(elem);
    return elem;
  }
  Type intTy(unsigned bits) const { return withElem(b.getIntegerType(bits)); }
  Value cInt(unsigned bits, uint64_t v) const {
    Type t = intTy(bits);
    TypedAttr attr = b.getIntegerAttr(b.getIntegerType(bits), APInt(bits, v));
    if (auto vt = dyn_cast<VectorType>(t)) attr = SplatElementsAttr::get(vt, attr);
    return arith::ConstantOp::create(b, loc, t, attr);
  }
  Value cFloat(FloatType ft, double v) const {
    Type t = withElem(ft);
    TypedAttr attr = b.getFloatAttr(ft, v);
    if (auto vt = dyn_cast<VectorType>(t)) attr = SplatElementsAttr::get(vt, attr);
    return arith::ConstantOp::create(b, loc, t, attr);
  }
  Value cmp(arith::CmpIPredicate p, Value a, Value c) const { return arith::CmpIOp::create(b, loc, p, a, c); }
  Value select(Value c, Value t, Value f) const { return arith::SelectOp::create(b, loc, c, t, f); }
  Value band(Value a, Value c) const { return arith::AndIOp::create(b, loc, a, c); }
  Value bor(Value a, Value c) const { return arith::OrIOp::create(b, loc, a, c); }
  Value add(Value a, Value c) const { return arith::AddIOp::create(b, loc, a, c); }
  Value sub(Value a, Value c) const { return arith::SubIOp::create(b, loc, a, c); }
  Value shl(Value a, Value c) const { return arith::ShLIOp::create(b, loc, a, c); }
  Value lshr(Value a, Value c) const { return arith::ShRUIOp::create(b, loc, a, c); }
  Value bitcast(Type t, Value v) const { return arith::BitcastOp::create(b, loc, t, v); }
};

/// truncf f32/f64 -> f16/bf16, rounding to nearest even from the source bits.
struct TruncToSmallFloat : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op, PatternRewriter &rw) const override {
    if (!isSmallFloat(op.getType()) || isSmallFloat(op.getIn().getType())) return failure();
    logRewrite(op, "integer rounding to nearest even");
    const FloatFormat s = FloatFormat::of(op.getIn().getType()), t = FloatFormat::of(op.getType());
    const unsigned n = s.width, shift = s.mantissa - t.mantissa;
    ShapedBuilder sb{rw, op.getLoc(), op.getType()};
    using P = arith::CmpIPredicate;
    Value u = sb.bitcast(sb.intTy(n), op.getIn());
    Value sign = sb.band(u, sb.cInt(n, uint64_t(1) << (n - 1)));
    Value a = sb.band(u, sb.cInt(n, (uint64_t(1) << (n - 1)) - 1));

    // Normal results: rebias the exponent, add half an ulp minus one plus the lowest kept
    // bit (ties to even), drop the low bits. A carry into the exponent is the right answer,
    // up to and including infinity.
    Value rebiased = sb.sub(a, sb.cInt(n, uint64_t(s.bias() - t.bias()) << s.mantissa));
    Value lowKept = sb.band(sb.lshr(a, sb.cInt(n, shift)), sb.cInt(n, 1));
    Value rounded = sb.add(sb.add(rebiased, sb.cInt(n, (uint64_t(1) << (shift - 1)) - 1)), lowKept);
    Value normal = sb.lshr(rounded, sb.cInt(n, shift));

    // Results below the target's smallest normal: adding a float whose ulp is the target's
    // smallest denormal rounds (in the FPU's default nearest-even mode) exactly as wanted.
    const int64_t magicExp = 1 - t.bias() - int64_t(t.mantissa) + int64_t(s.mantissa);
    const uint64_t magicBits = uint64_t(magicExp + s.bias()) << s.mantissa;
    Value magic = sb.bitcast(op.getIn().getType(), sb.cInt(n, magicBits));
    Value absF = sb.bitcast(op.getIn().getType(), a);
    Value sum = arith::AddFOp::create(rw, op.getLoc(), absF, magic);
    Value denormal = sb.sub(sb.bitcast(sb.intTy(n), sum), sb.cInt(n, magicBits));

    const uint64_t minNormal = uint64_t(1 - t.bias() + s.bias()) << s.mantissa;
    const int64_t overflowExp = ((int64_t(1) << t.exponent) - 1) - t.bias() + s.bias(); // 2^(emax_t + 1)
    const uint64_t overflow =
        overflowExp >= (int64_t(1) << s.exponent) - 1 ? s.expMask() : uint64_t(overflowExp) << s.mantissa;
    Value inf = sb.cInt(n, t.expMask());
    Value nan = sb.bor(sb.cInt(n, t.expMask() | (uint64_t(1) << (t.mantissa - 1))),
                       sb.band(sb.lshr(a, sb.cInt(n, shift)), sb.cInt(n, t.mantMask())));
    Value r = sb.select(sb.cmp(P::ult, a, sb.cInt(n, minNormal)), denormal, normal);
    r = sb.select(sb.cmp(P::uge, a, sb.cInt(n, overflow)), inf, r);
    r = sb.select(sb.cmp(P::ugt, a, sb.cInt(n, s.expMask())), nan, r);
    r = sb.bor(r, sb.lshr(sign, sb.cInt(n, n - 16)));
    Value r16 = arith::TruncIOp::create(rw, op.getLoc(), sb.intTy(16), r);
    rw.replaceOp(op, sb.bitcast(op.getType(), r16));
    return success();
  }
};

/// extf f16/bf16 -> f32/f64: exact.
struct ExtFromSmallFloat : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp op, PatternRewriter &rw) const override {
    if (!isSmallFloat(op.getIn().getType()) || isSmallFloat(op.getType())) return failure();
    logRewrite(op, "exact integer widening");
    const FloatFormat s = FloatFormat::of(op.getType()), t = FloatFormat::of(op.getIn().getType());
    const unsigned n = s.width, shift = s.mantissa - t.mantissa;
    ShapedBuilder sb{rw, op.getLoc(), op.getType()};
    using P = arith::CmpIPredicate;
    Value h = arith::ExtUIOp::create(rw, op.getLoc(), sb.intTy(n), sb.bitcast(sb.intTy(16), op.getIn()));
    Value sign = sb.shl(sb.band(h, sb.cInt(n, 0x8000)), sb.cInt(n, n - 16));
    Value a = sb.band(h, sb.cInt(n, 0x7fff));
    Value wide = sb.shl(a, sb.cInt(n, shift));
    Value normal = sb.add(wide, sb.cInt(n, uint64_t(s.bias() - t.bias()) << s.mantissa));
    Value special = sb.bor(wide, sb.cInt(n, s.expMask())); // inf and NaN keep their mantissa
    Value r = sb.select(sb.cmp(P::uge, a, sb.cInt(n, t.expMask())), special, normal);
    if (s.bias() != t.bias()) {
      // Denormals (and zero): mantissa * 2^(1 - bias - mantissa bits), exact in the wider type.
      Value mant32 = arith::TruncIOp::create(rw, op.getLoc(), sb.intTy(32), a);
      Value asFloat = arith::SIToFPOp::create(rw, op.getLoc(), op.getType(), mant32);
      auto ft = cast<FloatType>(getElementTypeOrSelf(op.getType()));
      Value scaled = arith::MulFOp::create(rw, op.getLoc(), asFloat,
                                           sb.cFloat(ft, std::ldexp(1.0, 1 - int(t.bias()) - int(t.mantissa))));
      r = sb.select(sb.cmp(P::ult, a, sb.cInt(n, uint64_t(1) << t.mantissa)), sb.bitcast(sb.intTy(n), scaled), r);
    }
    rw.replaceOp(op, sb.bitcast(op.getType(), sb.bor(r, sign)));
    return success();
  }
};

/// sitofp/uitofp to f16/bf16: to f64 exactly (or with a sticky bit, which keeps the one
/// rounding to the small type correct), then the truncation above.
template <typename OpTy, bool isSigned> struct IntToSmallFloat : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rw) const override {
    if (!isSmallFloat(op.getType())) return failure();
    logRewrite(op, "to f64 (sticky bit past 53 bits), then truncf");
    Location loc = op.getLoc();
    ShapedBuilder sb{rw, loc, op.getType()};
    Type f64 = sb.withElem(rw.getF64Type());
    Value in = op.getIn();
    unsigned bits = getElementTypeOrSelf(in.getType()).getIntOrFloatBitWidth();
    Value wide;
    if (bits <= 32) {
      wide = OpTy::create(rw, loc, f64, in);
    } else {
      // |v| as u64, shifted right by 11 with the lost bits ORed into bit 0 when it does
      // not fit 53 bits; converted exactly; scaled back by 2^11; sign restored.
      using P = arith::CmpIPredicate;
      Value v = bits == 64 ? in : Value(arith::ExtUIOp::create(rw, loc, sb.intTy(64), in));
      Value zero = sb.cInt(64, 0);
      Value negative = isSigned ? sb.cmp(P::slt, v, zero) : Value();
      Value mag = isSigned ? sb.select(negative, sb.sub(zero, v), v) : v;
      Value big = sb.cmp(P::uge, mag, sb.cInt(64, uint64_t(1) << 53));
      Value sticky =
          arith::ExtUIOp::create(rw, loc, sb.intTy(64), sb.cmp(P::ne, sb.band(mag, sb.cInt(64, 0x7ff)), zero));
      Value reduced = sb.bor(sb.lshr(mag, sb.cInt(64, 11)), sticky);
      Value asF = arith::UIToFPOp::create(rw, loc, f64, sb.select(big, reduced, mag));
      Value scale = sb.select(big, sb.cFloat(rw.getF64Type(), 2048.0), sb.cFloat(rw.getF64Type(), 1.0));
      wide = arith::MulFOp::create(rw, loc, asF, scale);
      if (isSigned) wide = sb.select(negative, arith::NegFOp::create(rw, loc, wide), wide);
    }
    rw.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), wide);
    return success();
  }
};

/// fptosi/fptoui from f16/bf16: through f32, which holds every value exactly.
template <typename OpTy> struct SmallFloatToInt : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rw) const override {
    if (!isSmallFloat(op.getIn().getType())) return failure();
    logRewrite(op, "through f32");
    ShapedBuilder sb{rw, op.getLoc(), op.getIn().getType()};
    Value f32 = arith::ExtFOp::create(rw, op.getLoc(), sb.withElem(rw.getF32Type()), op.getIn());
    rw.replaceOpWithNewOp<OpTy>(op, op.getType(), f32);
    return success();
  }
};

/// math.absf on f16/bf16 (tile::abs): the sign bit cleared, as PTX's abs.f16/abs.bf16.
struct AbsOfSmallFloat : OpRewritePattern<math::AbsFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::AbsFOp op, PatternRewriter &rw) const override {
    if (!isSmallFloat(op.getType())) return failure();
    logRewrite(op, "sign bit cleared");
    ShapedBuilder sb{rw, op.getLoc(), op.getType()};
    Value bits = sb.band(sb.bitcast(sb.intTy(16), op.getOperand()), sb.cInt(16, 0x7fff));
    rw.replaceOp(op, sb.bitcast(op.getType(), bits));
    return success();
  }
};

/// atomicrmw fadd on f16/bf16 (tile::atomic_add): a compare-and-swap loop on the 16 bits,
/// the sum computed in f32 and rounded back by the integer code above (one rounding, as
/// the GPU's atom.add.noftz). The first guess is +0; a miss retries with what memory held.
struct AtomicAddOfSmallFloat : OpRewritePattern<LLVM::AtomicRMWOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::AtomicRMWOp op, PatternRewriter &rw) const override {
    if (op.getBinOp() != LLVM::AtomicBinOp::fadd || !isSmallFloat(op.getVal().getType())) return failure();
    logRewrite(op, "compare-and-swap loop on i16, the sum in f32");
    Location loc = op.getLoc();
    Type small = op.getVal().getType(), i16 = rw.getI16Type(), f32 = rw.getF32Type();
    Value addend = arith::ExtFOp::create(rw, loc, f32, op.getVal());
    Value zero = arith::ConstantOp::create(rw, loc, rw.getIntegerAttr(i16, 0));
    Value yes = arith::ConstantOp::create(rw, loc, rw.getBoolAttr(true));
    auto loop = scf::WhileOp::create(
        rw, loc, TypeRange{i16}, ValueRange{zero},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value held = arith::BitcastOp::create(b, l, small, args[0]);
          Value seenBefore = arith::ExtFOp::create(b, l, f32, held);
          Value sum = arith::AddFOp::create(b, l, seenBefore, addend);
          Value desired = arith::BitcastOp::create(b, l, i16, arith::TruncFOp::create(b, l, small, sum));
          auto cas = LLVM::AtomicCmpXchgOp::create(b, l, op.getPtr(), args[0], desired, op.getOrdering(),
                                                   LLVM::AtomicOrdering::monotonic);
          Value seen = LLVM::ExtractValueOp::create(b, l, cas, ArrayRef<int64_t>{0});
          Value swapped = LLVM::ExtractValueOp::create(b, l, cas, ArrayRef<int64_t>{1});
          scf::ConditionOp::create(b, l, arith::XOrIOp::create(b, l, swapped, yes), ValueRange{seen});
        },
        [](OpBuilder &b, Location l, ValueRange args) { scf::YieldOp::create(b, l, args); });
    rw.replaceOp(op, arith::BitcastOp::create(rw, loc, small, loop.getResult(0)));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Phase 4: f16/bf16 values as their bits (i16).
//===----------------------------------------------------------------------===//

/// Ops that only move their f16/bf16 operands and results, so that the same op on i16
/// moves the same bits. Anything else on a small float computes (or may: atomics).
bool onlyMovesBits(Operation *op) {
  return isa<arith::SelectOp, ub::PoisonOp, memref::AllocaOp, memref::AllocOp, memref::DeallocOp, memref::LoadOp,
             memref::StoreOp, memref::ReinterpretCastOp, memref::SubViewOp, memref::CastOp, memref::GetGlobalOp,
             memref::CopyOp, memref::CollapseShapeOp, memref::ExpandShapeOp, memref::ExtractStridedMetadataOp,
             memref::ExtractAlignedPointerAsIndexOp, vector::LoadOp, vector::StoreOp, vector::MaskedLoadOp,
             vector::MaskedStoreOp, vector::GatherOp, vector::ScatterOp, vector::ExpandLoadOp, vector::CompressStoreOp,
             vector::TransferReadOp, vector::TransferWriteOp, vector::BroadcastOp, vector::ExtractOp, vector::InsertOp,
             vector::ShuffleOp, vector::ShapeCastOp, vector::TransposeOp, vector::ExtractStridedSliceOp,
             vector::InsertStridedSliceOp, vector::FromElementsOp, vector::ToElementsOp, vector::InterleaveOp,
             vector::DeinterleaveOp, vector::BitCastOp, LLVM::LoadOp, LLVM::StoreOp, LLVM::MaskedLoadOp,
             LLVM::MaskedStoreOp, LLVM::masked_gather, LLVM::masked_scatter, LLVM::PoisonOp, LLVM::UndefOp,
             LLVM::ZeroOp>(op);
}

/// Ops that pass values between regions and blocks (converted by MLIR's structural patterns).
bool isStructural(Operation *op) {
  return isa<scf::ForOp, scf::IfOp, scf::WhileOp, scf::ConditionOp, scf::YieldOp, scf::IndexSwitchOp,
             scf::ExecuteRegionOp, func::FuncOp, func::ReturnOp, func::CallOp, cf::BranchOp, cf::CondBranchOp,
             memref::GlobalOp>(op);
}

bool hasSmallFloatValue(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), isSmallFloat) || llvm::any_of(op->getResultTypes(), isSmallFloat);
}

/// f16/bf16 -> i16 in scalars, vectors and memrefs; every other type is kept.
struct BitsConverter : TypeConverter {
  BitsConverter() {
    addConversion([](Type t) { return t; });
    addConversion([](FloatType t) -> Type {
      return isa<Float16Type, BFloat16Type>(t) ? Type(IntegerType::get(t.getContext(), 16)) : Type(t);
    });
    addConversion([this](VectorType t) -> Type { return t.clone(convertType(t.getElementType())); });
    addConversion([this](MemRefType t) -> Type {
      return MemRefType::Builder(t).setElementType(convertType(t.getElementType()));
    });
  }
};

/// An op of onlyMovesBits: the same op on the converted operands and result types.
struct RetypeBitMove : ConversionPattern {
  RetypeBitMove(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands, ConversionPatternRewriter &rw) const override {
    if (!onlyMovesBits(op)) return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types))) return failure();
    OperationState state(op->getLoc(), op->getName(), operands, types, op->getAttrs());
    rw.replaceOp(op, rw.create(state)->getResults());
    return success();
  }
};

/// The bits of an f16/bf16 constant.
Attribute bitsOf(Attribute value, Type i16) {
  if (auto f = dyn_cast<FloatAttr>(value)) return IntegerAttr::get(i16, f.getValue().bitcastToAPInt());
  if (auto d = dyn_cast<DenseElementsAttr>(value)) return d.bitcast(i16);
  return {};
}

struct RetypeConstant : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(arith::ConstantOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    Type to = getTypeConverter()->convertType(op.getType());
    auto value = dyn_cast_or_null<TypedAttr>(bitsOf(op.getValue(), getElementTypeOrSelf(to)));
    if (!value) return failure();
    rw.replaceOpWithNewOp<arith::ConstantOp>(op, to, value);
    return success();
  }
};

/// A read-only global's type and initial value (tile-lower-to-cpu's non-splat constants).
struct RetypeGlobal : OpConversionPattern<memref::GlobalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(memref::GlobalOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    auto to = cast<MemRefType>(getTypeConverter()->convertType(op.getType()));
    Attribute init = op.getInitialValueAttr();
    if (init && !isa<UnitAttr>(init) && !(init = bitsOf(init, to.getElementType()))) return failure();
    rw.modifyOpInPlace(op, [&] {
      op.setType(to);
      if (init) op.setInitialValueAttr(init);
    });
    return success();
  }
};

/// The bitcasts phases 2 and 3 left between f16/bf16 and i16 become no-ops.
struct RetypeBitcast : OpConversionPattern<arith::BitcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(arith::BitcastOp op, OpAdaptor adaptor, ConversionPatternRewriter &rw) const override {
    Type to = getTypeConverter()->convertType(op.getType());
    if (to == adaptor.getIn().getType()) rw.replaceOp(op, adaptor.getIn());
    else rw.replaceOpWithNewOp<arith::BitcastOp>(op, to, adaptor.getIn());
    return success();
  }
};

LogicalResult smallFloatsAsBits(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  BitsConverter converter;
  ConversionTarget target(*ctx);
  target.markUnknownOpDynamicallyLegal([&](Operation *op) { return converter.isLegal(op); });
  target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp f) {
    return converter.isSignatureLegal(f.getFunctionType()) && converter.isLegal(&f.getBody());
  });
  target.addDynamicallyLegalOp<memref::GlobalOp>(
      [&](memref::GlobalOp g) { return converter.isLegal(Type(g.getType())); });
  RewritePatternSet patterns(ctx);
  patterns.add<RetypeBitMove>(converter, ctx);
  patterns.add<RetypeConstant, RetypeGlobal, RetypeBitcast>(converter, ctx);
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, converter);
  populateCallOpTypeConversionPattern(patterns, converter);
  populateReturnOpTypeConversionPattern(patterns, converter);
  populateBranchOpInterfaceTypeConversionPattern(patterns, converter);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns, target);
  return applyPartialConversion(module, target, std::move(patterns));
}

struct ExpandSmallFloatsPass : mlir::tile::impl::TileCpuExpandSmallFloatsBase<ExpandSmallFloatsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // 1. Integer <-> small float conversions first: arith's emulation would route an
    //    i64 -> bf16 through f32 (two roundings).
    LLVM_DEBUG(llvm::dbgs() << "[tile-cpu-expand-small-floats] phase 1: integer <-> f16/bf16 conversions\n");
    RewritePatternSet ints(ctx);
    ints.add<IntToSmallFloat<arith::SIToFPOp, true>, IntToSmallFloat<arith::UIToFPOp, false>,
             SmallFloatToInt<arith::FPToSIOp>, SmallFloatToInt<arith::FPToUIOp>>(ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(ints)))) return signalPassFailure();
    LLVM_DEBUG(llvm::dbgs() << "[tile-cpu-expand-small-floats] phase 2: f16/bf16 arithmetic in f32\n");

    // 2. Arithmetic in f32 (arith's emulation inserts extf/truncf around each op).
    TypeConverter converter;
    Type f32 = Float32Type::get(ctx);
    arith::populateEmulateUnsupportedFloatsConversions(converter, {Float16Type::get(ctx), BFloat16Type::get(ctx)}, f32);
    RewritePatternSet emulate(ctx);
    arith::populateEmulateUnsupportedFloatsPatterns(emulate, converter);
    ConversionTarget target(*ctx);
    arith::populateEmulateUnsupportedFloatsLegality(target, converter);
    if (failed(applyPartialConversion(getOperation(), target, std::move(emulate)))) return signalPassFailure();
    LLVM_DEBUG(llvm::dbgs() << "[tile-cpu-expand-small-floats] phase 3: extf/truncf as integer code\n");

    // 3. extf/truncf as integer code.
    RewritePatternSet expand(ctx);
    expand.add<TruncToSmallFloat, ExtFromSmallFloat, AbsOfSmallFloat, AtomicAddOfSmallFloat>(ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(expand)))) return signalPassFailure();

    // Anything left that computes on a small float would reach LLVM's soft-float helpers.
    WalkResult left = getOperation()->walk([&](Operation *op) {
      if (!hasSmallFloatValue(op) || onlyMovesBits(op) || isStructural(op) ||
          isa<arith::ConstantOp, arith::BitcastOp>(op))
        return WalkResult::advance();
      op->emitError("tile-cpu-expand-small-floats: no integer expansion for this f16/bf16 operation");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted()) return signalPassFailure();

    // 4. Every f16/bf16 value as its bits.
    LLVM_DEBUG(llvm::dbgs() << "[tile-cpu-expand-small-floats] phase 4: f16/bf16 values as i16\n");
    if (failed(smallFloatsAsBits(getOperation()))) signalPassFailure();
  }
};

} // namespace
