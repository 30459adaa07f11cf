//===- Elementwise.cpp - arith and math ops on chunks for the CPU executor ===//
// Everything converts by type (the op cloned with chunk or scalar types), with the fixes
// that make the CPU behave like the GPU (Elementwise.h).
#include "Elementwise.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::cpu;

/// Splat `attr` to the shape of `like` (a vector) or keep it scalar.
static Value constantLike(OpBuilder &b, Location loc, Type like, TypedAttr attr) {
  if (auto vt = dyn_cast<VectorType>(like)) return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vt, attr));
  return arith::ConstantOp::create(b, loc, attr);
}

/// x with its subnormal elements replaced by zeros of their sign (f32).
static Value flushSubnormal(OpBuilder &b, Location loc, Value x) {
  Type type = x.getType(), elem = getElementTypeOrSelf(type);
  Value smallestNormal = constantLike(b, loc, type, b.getFloatAttr(elem, 0x1p-126));
  Value tiny =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, math::AbsFOp::create(b, loc, x), smallestNormal);
  Value zero = math::CopySignOp::create(b, loc, constantLike(b, loc, type, b.getFloatAttr(elem, 0.0)), x);
  return arith::SelectOp::create(b, loc, tiny, zero, x);
}

/// `op` on `operands` with result type `type` and no fast-math flags: LLVM may not trade
/// accuracy here for what the host's instructions offer.
static Value cloneAccurate(OpBuilder &b, Operation *op, ValueRange operands, Type type) {
  IRMapping m;
  for (auto [from, to] : llvm::zip(op->getOperands(), operands)) m.map(from, to);
  Operation *clone = b.clone(*op, m);
  clone->getResult(0).setType(type);
  if (auto fm = dyn_cast<arith::ArithFastMathInterface>(clone))
    clone->setAttr(fm.getFastMathAttrName(), arith::FastMathFlagsAttr::get(b.getContext(), arith::FastMathFlags::none));
  return clone->getResult(0);
}

Value mlir::tile::cpu::lowerElementwise(LoweringState &state, Operation *op, ArrayRef<Value> operands,
                                        Type resultType) {
  if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect())) return state.unsupported(op, resultType);
  OpBuilder &b = state.builder();
  Location loc = state.loc();
  // Integer division: x86 traps on a zero divisor and on INT_MIN / -1, which masked-off
  // lanes may well contain; the GPU does not trap. Divide by 1 there instead (a zero
  // divisor gives x / 1 and x % 1; INT_MIN / -1 wraps to INT_MIN as on the GPU).
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp>(op)) {
    Value x = operands[0], d = operands[1];
    Type elem = getElementTypeOrSelf(d.getType());
    bool isSigned = isa<arith::DivSIOp, arith::RemSIOp>(op);
    Value zero = constantLike(b, loc, d.getType(), b.getIntegerAttr(elem, 0));
    Value one = constantLike(b, loc, d.getType(), b.getIntegerAttr(elem, 1));
    Value bad = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d, zero);
    Value negOne;
    if (isSigned) {
      Value minusOne = constantLike(b, loc, d.getType(), b.getIntegerAttr(elem, -1));
      negOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d, minusOne);
      bad = arith::OrIOp::create(b, loc, bad, negOne);
    }
    Value safe = arith::SelectOp::create(b, loc, bad, one, d);
    Operation *r =
        b.create(OperationState(loc, op->getName().getStringRef(), ValueRange{x, safe}, TypeRange{resultType}));
    Value res = r->getResult(0);
    if (isSigned && isa<arith::DivSIOp>(op)) // x / -1 == -x (wrapping)
      res = arith::SelectOp::create(b, loc, negOne, arith::SubIOp::create(b, loc, zero, x), res);
    return res;
  }
  // Float to int: LLVM's fptosi is poison out of range; the GPU's cvt.rzi saturates and
  // maps NaN to 0. Clamp in f32/f64 first.
  if (isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
    Value x = operands[0];
    auto ft = cast<FloatType>(getElementTypeOrSelf(x.getType()));
    if (ft.getWidth() < 32) {
      Type f32 = b.getF32Type();
      Type wide =
          isa<VectorType>(x.getType()) ? Type(VectorType::get(cast<VectorType>(x.getType()).getShape(), f32)) : f32;
      x = arith::ExtFOp::create(b, loc, wide, x);
      ft = cast<FloatType>(f32);
    }
    unsigned bits = getElementTypeOrSelf(resultType).getIntOrFloatBitWidth();
    bool isSigned = isa<arith::FPToSIOp>(op);
    APInt lo = isSigned ? APInt::getSignedMinValue(bits) : APInt::getMinValue(bits);
    APInt hi = isSigned ? APInt::getSignedMaxValue(bits) : APInt::getMaxValue(bits);
    auto toFloat = [&](const APInt &v, llvm::RoundingMode rm) {
      APFloat f(ft.getFloatSemantics());
      (void)f.convertFromAPInt(v, isSigned, rm);
      return b.getFloatAttr(ft, f);
    };
    Value flo = constantLike(b, loc, x.getType(), toFloat(lo, llvm::RoundingMode::TowardPositive));
    Value fhi = constantLike(b, loc, x.getType(), toFloat(hi, llvm::RoundingMode::TowardZero));
    Value clamped = arith::MinimumFOp::create(b, loc, arith::MaximumFOp::create(b, loc, x, flo), fhi);
    Operation *r =
        b.create(OperationState(loc, op->getName().getStringRef(), ValueRange{clamped}, TypeRange{resultType}));
    Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    Value zero = constantLike(b, loc, resultType, b.getIntegerAttr(getElementTypeOrSelf(resultType), 0));
    return arith::SelectOp::create(b, loc, isNan, zero, r->getResult(0));
  }
  // The DSL's fast_* functions (`afn`): the accurate function here (nothing that depends on
  // the host), with the GPU instruction's `.ftz`: ex2/lg2/sqrt/sin/cos.approx.ftz.f32 read
  // subnormal inputs as zeros of their sign and flush subnormal results so. (tanh.approx and
  // div.full have no such form.)
  auto fm = dyn_cast<arith::ArithFastMathInterface>(op);
  arith::FastMathFlagsAttr flags = fm ? fm.getFastMathFlagsAttr() : nullptr;
  if (flags && bitEnumContainsAll(flags.getValue(), arith::FastMathFlags::afn) &&
      getElementTypeOrSelf(resultType).isF32()) {
    bool flushIn = isa<math::Log2Op, math::SqrtOp, math::SinOp, math::CosOp>(op);
    bool flushOut = isa<math::Exp2Op, math::SinOp, math::CosOp>(op);
    SmallVector<Value> in(operands);
    if (flushIn) in[0] = flushSubnormal(b, loc, in[0]);
    Value r = cloneAccurate(b, op, in, resultType);
    return flushOut ? flushSubnormal(b, loc, r) : r;
  }
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue()))
      return arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(cast<ShapedType>(resultType), dense.getSplatValue<Attribute>()));
  }
  // Everything else converts by type: clone with the chunk (or scalar) types.
  return cloneAccurate(b, op, operands, resultType);
}
