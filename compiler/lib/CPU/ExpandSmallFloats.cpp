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
//     the semantics of PTX's cvt.rn.
// Afterwards no f16/bf16 value is computed on, only loaded, stored, selected and
// bit-cast, which every x86-64 CPU does with plain integer moves.
#include "tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
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

/// Masked vector memory intrinsics on f16/bf16 vectors as the same on i16 vectors: x86's
/// legaliser scalarises bfloat ones through __truncsfbf2 even on AVX-512 hosts.
template <typename OpTy> struct MemoryIntrinsicAsInt16 : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rw) const override {
    auto asInt16 = [&](Type t) -> Type {
      return isSmallFloat(t) ? Type(cast<VectorType>(t).clone(rw.getI16Type())) : t;
    };
    auto small = [](Type t) { return isSmallFloat(t); };
    if (llvm::none_of(op->getOperandTypes(), small) && llvm::none_of(op->getResultTypes(), small)) return failure();
    logRewrite(op, "the same intrinsic on i16 vectors");
    OperationState state(op.getLoc(), op->getName());
    for (Value v : op->getOperands())
      state.operands.push_back(
          isSmallFloat(v.getType()) ? Value(arith::BitcastOp::create(rw, op.getLoc(), asInt16(v.getType()), v)) : v);
    for (Type t : op->getResultTypes()) state.types.push_back(asInt16(t));
    state.attributes = op->getAttrs();
    Operation *replacement = rw.create(state);
    SmallVector<Value> results;
    for (auto [old, now] : llvm::zip(op->getResults(), replacement->getResults()))
      results.push_back(old.getType() == now.getType()
                            ? Value(now)
                            : Value(arith::BitcastOp::create(rw, op.getLoc(), old.getType(), now)));
    rw.replaceOp(op, results);
    return success();
  }
};

/// f16/bf16 function arguments as i16 (the same bits): x86's calling convention
/// converts a bfloat argument through __truncsfbf2 on CPUs without AVX512-BF16.
void passSmallFloatArgumentsAsInt16(func::FuncOp f) {
  if (f.isExternal()) return;
  Block &entry = f.front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  SmallVector<Type> inputs(f.getArgumentTypes());
  for (BlockArgument arg : entry.getArguments()) {
    if (!isa<Float16Type, BFloat16Type>(arg.getType())) continue;
    LLVM_DEBUG(llvm::dbgs() << "[tile-cpu-expand-small-floats] argument " << arg.getArgNumber() << " of "
                            << f.getSymName() << ": " << arg.getType() << " passed as i16\n");
    Type small = arg.getType();
    arg.setType(b.getI16Type());
    auto bits = arith::BitcastOp::create(b, f.getLoc(), small, arg);
    arg.replaceAllUsesExcept(bits, bits);
    inputs[arg.getArgNumber()] = b.getI16Type();
  }
  f.setFunctionType(FunctionType::get(f.getContext(), inputs, f.getResultTypes()));
}

struct ExpandSmallFloatsPass : mlir::tile::impl::TileCpuExpandSmallFloatsBase<ExpandSmallFloatsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    getOperation()->walk(passSmallFloatArgumentsAsInt16);
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
    expand.add<TruncToSmallFloat, ExtFromSmallFloat, MemoryIntrinsicAsInt16<LLVM::MaskedLoadOp>,
               MemoryIntrinsicAsInt16<LLVM::MaskedStoreOp>, MemoryIntrinsicAsInt16<LLVM::masked_gather>,
               MemoryIntrinsicAsInt16<LLVM::masked_scatter>>(ctx);
    if (failed(applyPatternsGreedily(getOperation(), std::move(expand)))) return signalPassFailure();

    // Anything left that computes on a small float would reach LLVM's soft-float helpers.
    WalkResult left = getOperation()->walk([&](Operation *op) {
      if (!isa<arith::ArithDialect>(op->getDialect()) || isa<arith::ConstantOp, arith::SelectOp, arith::BitcastOp>(op))
        return WalkResult::advance();
      for (Type t : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
        if (isSmallFloat(t)) {
          op->emitError("tile-cpu-expand-small-floats: no integer expansion for this f16/bf16 operation");
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (left.wasInterrupted()) signalPassFailure();
  }
};

} // namespace
