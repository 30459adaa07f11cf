//===- Math.cpp - the math library: math-dialect ops on tile values -------===//
// Each function emits one math (or arith) op on f32/f64 operands; f16/bf16 are widened to
// f32 first and the result rounded back once (the precision users expect, and what
// libdevice offers). The fast_* functions carry the `afn` fast-math flag, which the GPU
// lowering turns into the approximate instruction (ApproximateMath.cpp) and the CPU
// executor into the accurate function with the instruction's flushing (CPU/Elementwise.cpp).
#include "State.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

namespace tile {

using namespace detail;
namespace arith = mlir::arith;
namespace math = mlir::math;
using FMF = arith::FastMathFlags;

namespace {

/// A floating-point operand widened to f32 when narrower, and the type to round back to.
struct FloatOperand {
  mlir::Value value;
  mlir::Type original;
};

FloatOperand widened(TraceState &s, mlir::Location l, mlir::Value v, const char *name, const SrcLoc &loc) {
  if (!isFloatElem(v.getType()))
    fail(loc) << "tile::" << name << " needs a floating-point operand, got " << typeStr(v.getType())
              << " (unsupported dtype; convert with tile::cast(x, DType::f32))";
  mlir::Type original = mlir::getElementTypeOrSelf(v.getType());
  if (original.getIntOrFloatBitWidth() < 32) v = convertElem(s, l, v, mlir::Float32Type::get(s.ctx));
  return {v, original};
}

/// `r` rounded back to the operand's type.
Value narrowed(TraceState &s, mlir::Location l, mlir::Value r, const FloatOperand &x) {
  return wrap(convertElem(s, l, r, x.original));
}

/// One math op of class OpTy on a float operand; `fast` sets `afn`.
template <class OpTy> Value unaryFloat(const char *name, const Operand &x, const SrcLoc &loc, bool fast = false) {
  TraceState &s = requireTrace(loc, name);
  mlir::Location l = toLoc(s.ctx, loc);
  FloatOperand f = widened(s, l, singleOperand(s, l, x, name), name, loc);
  fast = fast && mlir::getElementTypeOrSelf(f.value.getType()).isF32(); // f64: the accurate function
  mlir::Value r = fast ? mlir::Value(OpTy::create(s.builder, l, f.value, FMF::afn))
                       : mlir::Value(OpTy::create(s.builder, l, f.value));
  return narrowed(s, l, r, f);
}

/// One op of class OpTy on two float operands promoted and broadcast like the operators'.
template <class OpTy>
Value binaryFloat(const char *name, const Operand &a, const Operand &b, const SrcLoc &loc, bool fast = false) {
  TraceState &s = requireTrace(loc, name);
  mlir::Location l = toLoc(s.ctx, loc);
  auto [x, y] = commonOperands(s, l, a, b, name, loc);
  FloatOperand fx = widened(s, l, x, name, loc), fy = widened(s, l, y, name, loc);
  fast = fast && mlir::getElementTypeOrSelf(fx.value.getType()).isF32(); // f64: the accurate function
  mlir::Value r = fast ? mlir::Value(OpTy::create(s.builder, l, fx.value, fy.value, FMF::afn))
                       : mlir::Value(OpTy::create(s.builder, l, fx.value, fy.value));
  return narrowed(s, l, r, fx);
}

/// An f32 constant splat like `like` (f32 or f64 elements).
mlir::Value floatLike(TraceState &s, mlir::Location l, const SrcLoc &loc, mlir::Value like, double v) {
  return makeConstant(s, l, loc, like.getType(), /*isFloatValue=*/true, 0, v);
}

/// An i1 predicate on a float operand (f16/bf16 widen exactly, so the answer is theirs).
template <class Fn> Value floatPredicate(const char *name, const Operand &x, const SrcLoc &loc, Fn &&predicate) {
  TraceState &s = requireTrace(loc, name);
  mlir::Location l = toLoc(s.ctx, loc);
  FloatOperand f = widened(s, l, singleOperand(s, l, x, name), name, loc);
  return wrap(predicate(s, l, f.value));
}

/// Two integer operands promoted and broadcast like the operators' (bools compute as i32).
std::pair<mlir::Value, mlir::Value> integerOperands(TraceState &s, mlir::Location l, const Operand &a, const Operand &b,
                                                    const char *name, const SrcLoc &loc) {
  auto [x, y] = commonOperands(s, l, a, b, name, loc);
  if (!isIntElem(x.getType())) fail(loc) << "tile::" << name << " needs integer operands, got " << typeStr(x.getType());
  return {x, y};
}

} // namespace

Value exp(Operand x, SrcLoc loc) { return unaryFloat<math::ExpOp>("exp", x, loc); }
Value exp2(Operand x, SrcLoc loc) { return unaryFloat<math::Exp2Op>("exp2", x, loc); }
Value expm1(Operand x, SrcLoc loc) { return unaryFloat<math::ExpM1Op>("expm1", x, loc); }
Value log(Operand x, SrcLoc loc) { return unaryFloat<math::LogOp>("log", x, loc); }
Value log2(Operand x, SrcLoc loc) { return unaryFloat<math::Log2Op>("log2", x, loc); }
Value log1p(Operand x, SrcLoc loc) { return unaryFloat<math::Log1pOp>("log1p", x, loc); }
Value rsqrt(Operand x, SrcLoc loc) { return unaryFloat<math::RsqrtOp>("rsqrt", x, loc); }
Value sin(Operand x, SrcLoc loc) { return unaryFloat<math::SinOp>("sin", x, loc); }
Value cos(Operand x, SrcLoc loc) { return unaryFloat<math::CosOp>("cos", x, loc); }
Value tan(Operand x, SrcLoc loc) { return unaryFloat<math::TanOp>("tan", x, loc); }
Value tanh(Operand x, SrcLoc loc) { return unaryFloat<math::TanhOp>("tanh", x, loc); }
Value erf(Operand x, SrcLoc loc) { return unaryFloat<math::ErfOp>("erf", x, loc); }
Value pow(Operand x, Operand y, SrcLoc loc) { return binaryFloat<math::PowFOp>("pow", x, y, loc); }

Value sigmoid(Operand x, SrcLoc loc) {
  // With t = e^-|x|: 1 / (1 + t) for x >= 0, t / (1 + t) below, so that the subnormal
  // results of x in (-104, -87] are not lost to an e^-x that overflows (1 / (1 + e^-x) is 0
  // there).
  TraceState &s = requireTrace(loc, "sigmoid");
  mlir::Location l = toLoc(s.ctx, loc);
  FloatOperand f = widened(s, l, singleOperand(s, l, x, "sigmoid"), "sigmoid", loc);
  mlir::OpBuilder &b = s.builder;
  mlir::Value one = floatLike(s, l, loc, f.value, 1.0), zero = floatLike(s, l, loc, f.value, 0.0);
  mlir::Value t = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, math::AbsFOp::create(b, l, f.value)));
  mlir::Value r = arith::DivFOp::create(b, l, one, arith::AddFOp::create(b, l, one, t));
  mlir::Value nonNegative = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UGE, f.value, zero);
  return narrowed(s, l, arith::SelectOp::create(b, l, nonNegative, r, arith::MulFOp::create(b, l, t, r)), f);
}

Value sqrt(Operand x, SrcLoc loc) { return unaryFloat<math::SqrtOp>("sqrt", x, loc); }
Value sqrt_rn(Operand x, SrcLoc loc) { return unaryFloat<math::SqrtOp>("sqrt_rn", x, loc); }
Value div_rn(Operand a, Operand b, SrcLoc loc) { return binaryFloat<arith::DivFOp>("div_rn", a, b, loc); }
Value floor(Operand x, SrcLoc loc) { return unaryFloat<math::FloorOp>("floor", x, loc); }
Value ceil(Operand x, SrcLoc loc) { return unaryFloat<math::CeilOp>("ceil", x, loc); }
Value trunc(Operand x, SrcLoc loc) { return unaryFloat<math::TruncOp>("trunc", x, loc); }
Value rint(Operand x, SrcLoc loc) { return unaryFloat<math::RoundEvenOp>("rint", x, loc); }
Value round(Operand x, SrcLoc loc) { return unaryFloat<math::RoundOp>("round", x, loc); }

Value clamp(Operand x, Operand lo, Operand hi, SrcLoc loc) {
  requireTrace(loc, "clamp");
  return minimum(maximum(x, lo, loc), hi, loc);
}

Value isnan(Operand x, SrcLoc loc) {
  return floatPredicate("isnan", x, loc, [](TraceState &s, mlir::Location l, mlir::Value v) -> mlir::Value {
    return arith::CmpFOp::create(s.builder, l, arith::CmpFPredicate::UNO, v, v);
  });
}

Value isinf(Operand x, SrcLoc loc) {
  return floatPredicate("isinf", x, loc, [&](TraceState &s, mlir::Location l, mlir::Value v) -> mlir::Value {
    mlir::Value inf = floatLike(s, l, loc, v, INFINITY);
    return arith::CmpFOp::create(s.builder, l, arith::CmpFPredicate::OEQ, math::AbsFOp::create(s.builder, l, v), inf);
  });
}

Value signbit(Operand x, SrcLoc loc) {
  // copysign(1, x) carries x's sign bit, NaNs' and zeros' included, into a number a
  // comparison can read.
  return floatPredicate("signbit", x, loc, [&](TraceState &s, mlir::Location l, mlir::Value v) -> mlir::Value {
    mlir::Value sign = math::CopySignOp::create(s.builder, l, floatLike(s, l, loc, v, 1.0), v);
    return arith::CmpFOp::create(s.builder, l, arith::CmpFPredicate::OLT, sign, floatLike(s, l, loc, v, 0.0));
  });
}

Value fast_exp2(Operand x, SrcLoc loc) { return unaryFloat<math::Exp2Op>("fast_exp2", x, loc, /*fast=*/true); }
Value fast_exp(Operand x, SrcLoc loc) {
  // In f32 (f16's log2 e would be off by 2^-11): e^x = 2^(x · log2 e).
  TraceState &s = requireTrace(loc, "fast_exp");
  mlir::Location l = toLoc(s.ctx, loc);
  FloatOperand f = widened(s, l, singleOperand(s, l, x, "fast_exp"), "fast_exp", loc);
  mlir::Value scaled = arith::MulFOp::create(s.builder, l, f.value, floatLike(s, l, loc, f.value, M_LOG2E));
  return narrowed(s, l, math::Exp2Op::create(s.builder, l, scaled, FMF::afn), f);
}
Value fast_log2(Operand x, SrcLoc loc) { return unaryFloat<math::Log2Op>("fast_log2", x, loc, /*fast=*/true); }
Value fast_log(Operand x, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "fast_log");
  mlir::Location l = toLoc(s.ctx, loc);
  FloatOperand f = widened(s, l, singleOperand(s, l, x, "fast_log"), "fast_log", loc);
  mlir::Value log2x = math::Log2Op::create(s.builder, l, f.value, FMF::afn);
  return narrowed(s, l, arith::MulFOp::create(s.builder, l, log2x, floatLike(s, l, loc, f.value, M_LN2)), f);
}
Value fast_sqrt(Operand x, SrcLoc loc) { return unaryFloat<math::SqrtOp>("fast_sqrt", x, loc, /*fast=*/true); }
Value fast_tanh(Operand x, SrcLoc loc) { return unaryFloat<math::TanhOp>("fast_tanh", x, loc, /*fast=*/true); }
Value fast_sin(Operand x, SrcLoc loc) { return unaryFloat<math::SinOp>("fast_sin", x, loc, /*fast=*/true); }
Value fast_cos(Operand x, SrcLoc loc) { return unaryFloat<math::CosOp>("fast_cos", x, loc, /*fast=*/true); }
Value fdiv(Operand a, Operand b, SrcLoc loc) { return binaryFloat<arith::DivFOp>("fdiv", a, b, loc, /*fast=*/true); }

Value umulhi(Operand a, Operand b, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "umulhi");
  mlir::Location l = toLoc(s.ctx, loc);
  auto [x, y] = integerOperands(s, l, a, b, "umulhi", loc);
  unsigned bits = mlir::getElementTypeOrSelf(x.getType()).getIntOrFloatBitWidth();
  if (bits != 32 && bits != 64) fail(loc) << "tile::umulhi needs i32 or i64 operands, got " << typeStr(x.getType());
  // The product in twice the width, shifted down: LLVM selects mul.hi.u32/u64 from it.
  mlir::OpBuilder &bld = s.builder;
  mlir::Type wide = withElem(x.getType(), mlir::IntegerType::get(s.ctx, 2 * bits));
  mlir::Value p =
      arith::MulIOp::create(bld, l, arith::ExtUIOp::create(bld, l, wide, x), arith::ExtUIOp::create(bld, l, wide, y));
  mlir::Value shift = makeConstant(s, l, loc, wide, false, bits, 0);
  return wrap(arith::TruncIOp::create(bld, l, x.getType(), arith::ShRUIOp::create(bld, l, p, shift)));
}

Value cdiv(Operand a, Operand b, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "cdiv");
  mlir::Location l = toLoc(s.ctx, loc);
  auto [x, y] = integerOperands(s, l, a, b, "cdiv", loc);
  mlir::OpBuilder &bld = s.builder;
  mlir::Value one = makeConstant(s, l, loc, y.getType(), false, 1, 0);
  mlir::Value up = arith::SubIOp::create(bld, l, arith::AddIOp::create(bld, l, x, y), one);
  return wrap(arith::DivSIOp::create(bld, l, up, y));
}

} // namespace tile
