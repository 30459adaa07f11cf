//===- Arith.cpp - operators, where, cast, fma, abs (math: Math.cpp) ------===//
// Triton's elementwise semantics: operands are promoted to a common element type and
// broadcast to a common shape (a scalar is splat; tensors of equal rank broadcast their
// size-1 dimensions), then one arith/math op is emitted on the result type.
#include "State.h"

#include "mlir/Dialect/Math/IR/Math.h"

namespace tile {

using namespace detail;
namespace arith = mlir::arith;

namespace {

enum class Bin { Add, Sub, Mul, Div, Rem, Lt, Le, Gt, Ge, Eq, Ne, And, Or, Xor, Shl, Shr, Max, Min, Where, Fma };

const char *binName(Bin k) {
  switch (k) {
  case Bin::Add: return "operator+";
  case Bin::Sub: return "operator-";
  case Bin::Mul: return "operator*";
  case Bin::Div: return "operator/";
  case Bin::Rem: return "operator%";
  case Bin::Lt: return "operator<";
  case Bin::Le: return "operator<=";
  case Bin::Gt: return "operator>";
  case Bin::Ge: return "operator>=";
  case Bin::Eq: return "operator==";
  case Bin::Ne: return "operator!=";
  case Bin::And: return "operator&";
  case Bin::Or: return "operator|";
  case Bin::Xor: return "operator^";
  case Bin::Shl: return "operator<<";
  case Bin::Shr: return "operator>>";
  case Bin::Max: return "maximum";
  case Bin::Min: return "minimum";
  case Bin::Where: return "where";
  case Bin::Fma: return "fma";
  }
  return "?";
}

bool isArith(Bin k) { return k == Bin::Add || k == Bin::Sub || k == Bin::Mul || k == Bin::Div || k == Bin::Rem; }
bool isCmp(Bin k) { return k >= Bin::Lt && k <= Bin::Ne; }
bool isIntOnly(Bin k) { return k >= Bin::And && k <= Bin::Shr; }

/// The type an integer literal gets on its own: i32, or i64 if it does not fit.
mlir::Type literalIntType(mlir::MLIRContext *ctx, int64_t v) {
  bool fits = v >= INT32_MIN && v <= INT32_MAX;
  return mlir::IntegerType::get(ctx, fits ? 32 : 64);
}

/// Promotion of two element types (both Values): the wider float; float beats int; the
/// wider int. f16 and bf16 mixed (or either with f32) compute in f32.
mlir::Type promote(mlir::MLIRContext *ctx, mlir::Type a, mlir::Type b) {
  if (a == b) return a;
  auto fa = mlir::dyn_cast<mlir::FloatType>(a), fb = mlir::dyn_cast<mlir::FloatType>(b);
  if (fa && fb) {
    if (fa.isF64() || fb.isF64()) return mlir::Float64Type::get(ctx);
    return mlir::Float32Type::get(ctx);
  }
  if (fa) return a;
  if (fb) return b;
  return a.getIntOrFloatBitWidth() >= b.getIntOrFloatBitWidth() ? a : b;
}

/// The element type both operands are converted to. A C++ number takes the other
/// operand's type (an int literal with a float tensor is a float constant); a float
/// literal with an integer tensor promotes both to f32.
mlir::Type commonElem(TraceState &s, Bin k, const Operand &a, mlir::Value va, const Operand &b, mlir::Value vb,
                      const SrcLoc &loc) {
  mlir::MLIRContext *ctx = s.ctx;
  mlir::Type f32 = mlir::Float32Type::get(ctx);
  mlir::Type e;
  if (va && vb) {
    e = promote(ctx, mlir::getElementTypeOrSelf(va.getType()), mlir::getElementTypeOrSelf(vb.getType()));
  } else if (va || vb) {
    mlir::Type t = mlir::getElementTypeOrSelf((va ? va : vb).getType());
    const Operand &lit = va ? b : a;
    if (lit.kind == Operand::Kind::Float) {
      e = mlir::isa<mlir::FloatType>(t) ? t : f32;
    } else if (t.isInteger(1)) {
      // A bool mixed with a number: stays bool only for the bitwise/comparison ops with
      // 0 or 1 (mask == 1, mask & 1); arithmetic on bools is done in i32 as in Triton.
      bool boolish = (isCmp(k) || isIntOnly(k)) && (lit.i == 0 || lit.i == 1);
      e = boolish ? t : literalIntType(ctx, lit.i);
    } else {
      e = t;
    }
  } else {
    bool anyFloat = a.kind == Operand::Kind::Float || b.kind == Operand::Kind::Float;
    e = anyFloat ? f32 : promote(ctx, literalIntType(ctx, a.i), literalIntType(ctx, b.i));
  }
  if (isIntOnly(k) && mlir::isa<mlir::FloatType>(e))
    fail(loc) << binName(k) << " needs integer operands, got " << (va ? typeStr(va.getType()) : "a number") << " and "
              << (vb ? typeStr(vb.getType()) : "a number");
  if (isArith(k) && e.isInteger(1)) e = mlir::IntegerType::get(ctx, 32);
  return e;
}

/// The broadcast shape of the Value operands, or a "shape mismatch" error.
llvm::SmallVector<int64_t> commonShape(const char *what, llvm::ArrayRef<mlir::Value> vs, const SrcLoc &loc) {
  llvm::SmallVector<int64_t> shape;
  for (mlir::Value v : vs) {
    if (!v) continue;
    auto j = broadcastShapes(shape, shapeOf(v.getType()));
    if (!j) {
      std::string all;
      for (mlir::Value w : vs)
        if (w) all += (all.empty() ? "" : " vs ") + shapeStr(shapeOf(w.getType()));
      fail(loc) << "shape mismatch in " << what << ": " << all;
    }
    shape = *j;
  }
  return shape;
}

mlir::Value emitBinary(TraceState &s, mlir::Location l, Bin k, mlir::Value x, mlir::Value y) {
  mlir::OpBuilder &b = s.builder;
  if (isFloatElem(x.getType())) {
    using P = arith::CmpFPredicate;
    switch (k) {
    case Bin::Add: return arith::AddFOp::create(b, l, x, y);
    case Bin::Sub: return arith::SubFOp::create(b, l, x, y);
    case Bin::Mul: return arith::MulFOp::create(b, l, x, y);
    case Bin::Div: return arith::DivFOp::create(b, l, x, y);
    case Bin::Rem: return arith::RemFOp::create(b, l, x, y);
    case Bin::Lt: return arith::CmpFOp::create(b, l, P::OLT, x, y);
    case Bin::Le: return arith::CmpFOp::create(b, l, P::OLE, x, y);
    case Bin::Gt: return arith::CmpFOp::create(b, l, P::OGT, x, y);
    case Bin::Ge: return arith::CmpFOp::create(b, l, P::OGE, x, y);
    case Bin::Eq: return arith::CmpFOp::create(b, l, P::OEQ, x, y);
    // Unordered: NaN != NaN is true, as in C++ and Triton (x != x detects NaN).
    case Bin::Ne: return arith::CmpFOp::create(b, l, P::UNE, x, y);
    case Bin::Max: return arith::MaximumFOp::create(b, l, x, y);
    case Bin::Min: return arith::MinimumFOp::create(b, l, x, y);
    default: break;
    }
  } else {
    using P = arith::CmpIPredicate;
    switch (k) {
    case Bin::Add: return arith::AddIOp::create(b, l, x, y);
    case Bin::Sub: return arith::SubIOp::create(b, l, x, y);
    case Bin::Mul: return arith::MulIOp::create(b, l, x, y);
    case Bin::Div: return arith::DivSIOp::create(b, l, x, y);
    case Bin::Rem: return arith::RemSIOp::create(b, l, x, y);
    case Bin::Lt: return arith::CmpIOp::create(b, l, P::slt, x, y);
    case Bin::Le: return arith::CmpIOp::create(b, l, P::sle, x, y);
    case Bin::Gt: return arith::CmpIOp::create(b, l, P::sgt, x, y);
    case Bin::Ge: return arith::CmpIOp::create(b, l, P::sge, x, y);
    case Bin::Eq: return arith::CmpIOp::create(b, l, P::eq, x, y);
    case Bin::Ne: return arith::CmpIOp::create(b, l, P::ne, x, y);
    case Bin::And: return arith::AndIOp::create(b, l, x, y);
    case Bin::Or: return arith::OrIOp::create(b, l, x, y);
    case Bin::Xor: return arith::XOrIOp::create(b, l, x, y);
    case Bin::Shl: return arith::ShLIOp::create(b, l, x, y);
    case Bin::Shr: return arith::ShRSIOp::create(b, l, x, y);
    case Bin::Max: return arith::MaxSIOp::create(b, l, x, y);
    case Bin::Min: return arith::MinSIOp::create(b, l, x, y);
    default: break;
    }
  }
  bug() << "unhandled binary op";
}

/// ptr + offset (negated for ptr - offset): tile.addptr, offsets in elements.
Value addptr(TraceState &s, mlir::Location l, const SrcLoc &loc, mlir::Value ptr, const Operand &off, bool negate) {
  const char *what = negate ? "pointer - offset" : "pointer + offset";
  mlir::Type offElem;
  mlir::Value voff;
  if (off.kind == Operand::Kind::Float)
    fail(loc) << what << ": pointer offset must be an integer, got the float number " << off.f;
  if (off.kind == Operand::Kind::V) {
    voff = use(s, off.value, off.loc, what);
    mlir::Type t = voff.getType();
    if (isPtrElem(t))
      fail(loc) << what << ": cannot add two pointers (" << typeStr(ptr.getType()) << " and " << typeStr(t) << ")";
    if (isFloatElem(t)) fail(loc) << what << ": pointer offset must be an integer, got " << typeStr(t);
    unsigned w = mlir::getElementTypeOrSelf(t).getIntOrFloatBitWidth();
    offElem = w < 32 ? mlir::IntegerType::get(s.ctx, 32) : mlir::getElementTypeOrSelf(t);
  } else {
    offElem = literalIntType(s.ctx, negate ? -off.i : off.i);
  }
  auto shape = broadcastShapes(shapeOf(ptr.getType()), voff ? shapeOf(voff.getType()) : llvm::ArrayRef<int64_t>{});
  if (!shape)
    fail(loc) << "shape mismatch in " << what << ": " << shapeStr(shapeOf(ptr.getType())) << " vs "
              << shapeStr(shapeOf(voff.getType()));
  mlir::Value offset;
  if (voff) {
    offset = materialize(s, l, off, offElem, *shape, what);
    if (negate)
      offset = arith::SubIOp::create(s.builder, l, makeConstant(s, l, loc, offset.getType(), false, 0, 0), offset);
  } else {
    offset = makeConstant(s, l, loc, shaped(*shape, offElem), false, negate ? -off.i : off.i, 0);
  }
  mlir::Value p = broadcastTo(s, l, ptr, *shape);
  return wrap(mlir::tile::AddPtrOp::create(s.builder, l, p.getType(), p, offset));
}

Value binary(Bin k, const Operand &a, const Operand &b, const SrcLoc &loc) {
  TraceState &s = requireTrace(loc, binName(k));
  mlir::Location l = toLoc(s.ctx, loc);
  mlir::Value va = a.kind == Operand::Kind::V ? use(s, a.value, a.loc, binName(k)) : mlir::Value();
  mlir::Value vb = b.kind == Operand::Kind::V ? use(s, b.value, b.loc, binName(k)) : mlir::Value();
  bool pa = va && isPtrElem(va.getType()), pb = vb && isPtrElem(vb.getType());
  if (pa || pb) {
    if (pa && !pb && (k == Bin::Add || k == Bin::Sub)) return addptr(s, l, loc, va, b, k == Bin::Sub);
    if (pb && !pa && k == Bin::Add) fail(loc) << "pointer arithmetic needs the pointer on the left: write ptr + offset";
    fail(loc) << binName(k) << " is not defined for pointers (" << (va ? typeStr(va.getType()) : "a number") << " and "
              << (vb ? typeStr(vb.getType()) : "a number") << ")";
  }
  mlir::Type e = commonElem(s, k, a, va, b, vb, loc);
  auto shape = commonShape(binName(k), {va, vb}, loc);
  mlir::Value x = materialize(s, l, a, e, shape, binName(k));
  mlir::Value y = materialize(s, l, b, e, shape, binName(k));
  return wrap(emitBinary(s, l, k, x, y));
}

/// A single operand as an MLIR value; a C++ number becomes a scalar constant of the
/// type it would get alone (i32 or f32).
mlir::Value single(TraceState &s, mlir::Location l, const Operand &x, const char *what) {
  if (x.kind == Operand::Kind::V) return use(s, x.value, x.loc, what);
  mlir::Type t =
      x.kind == Operand::Kind::Float ? mlir::Type(mlir::Float32Type::get(s.ctx)) : literalIntType(s.ctx, x.i);
  return makeConstant(s, l, x.loc, t, x.kind == Operand::Kind::Float, x.i, x.f);
}

} // namespace

std::pair<mlir::Value, mlir::Value> detail::commonOperands(TraceState &s, mlir::Location l, const Operand &a,
                                                           const Operand &b, const char *what, const SrcLoc &loc) {
  mlir::Value va = a.kind == Operand::Kind::V ? use(s, a.value, a.loc, what) : mlir::Value();
  mlir::Value vb = b.kind == Operand::Kind::V ? use(s, b.value, b.loc, what) : mlir::Value();
  if ((va && isPtrElem(va.getType())) || (vb && isPtrElem(vb.getType())))
    fail(loc) << what << " is not defined for pointers";
  // The promotion of an arithmetic operator (a bool computes as i32).
  mlir::Type e = commonElem(s, Bin::Add, a, va, b, vb, loc);
  auto shape = commonShape(what, {va, vb}, loc);
  return {materialize(s, l, a, e, shape, what), materialize(s, l, b, e, shape, what)};
}

mlir::Value detail::singleOperand(TraceState &s, mlir::Location l, const Operand &x, const char *what) {
  return single(s, l, x, what);
}

Value operator+(Operand a, Operand b) { return binary(Bin::Add, a, b, a.loc); }
Value operator-(Operand a, Operand b) { return binary(Bin::Sub, a, b, a.loc); }
Value operator*(Operand a, Operand b) { return binary(Bin::Mul, a, b, a.loc); }
Value operator/(Operand a, Operand b) { return binary(Bin::Div, a, b, a.loc); }
Value operator%(Operand a, Operand b) { return binary(Bin::Rem, a, b, a.loc); }
Value operator<(Operand a, Operand b) { return binary(Bin::Lt, a, b, a.loc); }
Value operator<=(Operand a, Operand b) { return binary(Bin::Le, a, b, a.loc); }
Value operator>(Operand a, Operand b) { return binary(Bin::Gt, a, b, a.loc); }
Value operator>=(Operand a, Operand b) { return binary(Bin::Ge, a, b, a.loc); }
Value operator==(Operand a, Operand b) { return binary(Bin::Eq, a, b, a.loc); }
Value operator!=(Operand a, Operand b) { return binary(Bin::Ne, a, b, a.loc); }
Value operator&(Operand a, Operand b) { return binary(Bin::And, a, b, a.loc); }
Value operator|(Operand a, Operand b) { return binary(Bin::Or, a, b, a.loc); }
Value operator^(Operand a, Operand b) { return binary(Bin::Xor, a, b, a.loc); }
Value operator<<(Operand a, Operand b) { return binary(Bin::Shl, a, b, a.loc); }
Value operator>>(Operand a, Operand b) { return binary(Bin::Shr, a, b, a.loc); }
Value maximum(Operand a, Operand b, SrcLoc loc) { return binary(Bin::Max, a, b, loc); }
Value minimum(Operand a, Operand b, SrcLoc loc) { return binary(Bin::Min, a, b, loc); }

Value operator-(Operand a) {
  TraceState &s = requireTrace(a.loc, "operator-");
  mlir::Location l = toLoc(s.ctx, a.loc);
  mlir::Value v = single(s, l, a, "operator-");
  if (isPtrElem(v.getType())) fail(a.loc) << "operator- is not defined for pointers (" << typeStr(v.getType()) << ")";
  if (isFloatElem(v.getType())) return wrap(arith::NegFOp::create(s.builder, l, v));
  if (isBoolElem(v.getType())) v = convertElem(s, l, v, mlir::IntegerType::get(s.ctx, 32));
  return wrap(arith::SubIOp::create(s.builder, l, makeConstant(s, l, a.loc, v.getType(), false, 0, 0), v));
}

Value operator!(Operand a) {
  TraceState &s = requireTrace(a.loc, "operator!");
  mlir::Location l = toLoc(s.ctx, a.loc);
  mlir::Value v = single(s, l, a, "operator!");
  if (!isIntElem(v.getType()))
    fail(a.loc) << "operator! needs a boolean or integer operand, got " << typeStr(v.getType());
  if (isBoolElem(v.getType()))
    return wrap(arith::XOrIOp::create(s.builder, l, v, makeConstant(s, l, a.loc, v.getType(), false, 1, 0)));
  return wrap(arith::CmpIOp::create(s.builder, l, arith::CmpIPredicate::eq, v,
                                    makeConstant(s, l, a.loc, v.getType(), false, 0, 0)));
}

Value where(Operand cond, Operand a, Operand b, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "where");
  mlir::Location l = toLoc(s.ctx, loc);
  if (cond.kind != Operand::Kind::V) fail(loc) << "where: the condition must be a boolean tile value, not a number";
  mlir::Value c = use(s, cond.value, cond.loc, "where");
  if (!isBoolElem(c.getType()))
    fail(loc) << "where: the condition must be boolean (i1), got " << typeStr(c.getType())
              << "; compare it, e.g. x != 0";
  mlir::Value va = a.kind == Operand::Kind::V ? use(s, a.value, a.loc, "where") : mlir::Value();
  mlir::Value vb = b.kind == Operand::Kind::V ? use(s, b.value, b.loc, "where") : mlir::Value();
  mlir::Type e;
  bool pa = va && isPtrElem(va.getType()), pb = vb && isPtrElem(vb.getType());
  if (pa || pb) { // selecting between pointers is fine if both are the same pointer type
    if (!(pa && pb) || mlir::getElementTypeOrSelf(va.getType()) != mlir::getElementTypeOrSelf(vb.getType()))
      fail(loc) << "where: cannot mix " << (va ? typeStr(va.getType()) : std::string("a number")) << " and "
                << (vb ? typeStr(vb.getType()) : std::string("a number"));
    e = mlir::getElementTypeOrSelf(va.getType());
  } else {
    e = commonElem(s, Bin::Where, a, va, b, vb, loc);
  }
  auto shape = commonShape("where", {c, va, vb}, loc);
  mlir::Value x = materialize(s, l, a, e, shape, "where");
  mlir::Value y = materialize(s, l, b, e, shape, "where");
  c = broadcastTo(s, l, c, shape);
  return wrap(arith::SelectOp::create(s.builder, l, c, x, y));
}

Value cast(Operand x, DType to, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "cast");
  mlir::Location l = toLoc(s.ctx, loc);
  mlir::Type t = toMlir(s.ctx, to);
  if (x.kind != Operand::Kind::V) return wrap(makeConstant(s, l, loc, t, x.kind == Operand::Kind::Float, x.i, x.f));
  mlir::Value v = use(s, x.value, x.loc, "cast");
  if (isPtrElem(v.getType())) fail(loc) << "cast: cannot convert " << typeStr(v.getType()) << " to " << dtypeName(to);
  return wrap(convertElem(s, l, v, t));
}

Value fma(Operand a, Operand b, Operand c, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "fma");
  mlir::Location l = toLoc(s.ctx, loc);
  mlir::Value vs[3];
  mlir::Type e;
  const Operand *ops[3] = {&a, &b, &c};
  for (int i = 0; i < 3; ++i) {
    if (ops[i]->kind != Operand::Kind::V) continue;
    vs[i] = use(s, ops[i]->value, ops[i]->loc, "fma");
    mlir::Type t = mlir::getElementTypeOrSelf(vs[i].getType());
    e = e ? promote(s.ctx, e, t) : t;
  }
  if (!e) fail(loc) << "fma: give at least one tile value (for numbers, compute a * b + c in C++)";
  if (!mlir::isa<mlir::FloatType>(e))
    fail(loc) << "fma needs floating-point operands, got " << typeStr(e)
              << " (unsupported dtype; convert with tile::cast(x, DType::f32))";
  auto shape = commonShape("fma", {vs[0], vs[1], vs[2]}, loc);
  const bool narrow = e.getIntOrFloatBitWidth() < 32;
  mlir::Type f32 = mlir::Float32Type::get(s.ctx);
  mlir::Value xs[3];
  for (int i = 0; i < 3; ++i) {
    xs[i] = materialize(s, l, *ops[i], e, shape, "fma");
    if (narrow) xs[i] = convertElem(s, l, xs[i], f32);
  }
  mlir::Value r = mlir::math::FmaOp::create(s.builder, l, xs[0], xs[1], xs[2]);
  return wrap(narrow ? convertElem(s, l, r, e) : r);
}

Value abs(Operand x, SrcLoc loc) {
  TraceState &s = requireTrace(loc, "abs");
  mlir::Location l = toLoc(s.ctx, loc);
  mlir::Value v = single(s, l, x, "abs");
  if (isPtrElem(v.getType())) fail(loc) << "tile::abs is not defined for pointers (" << typeStr(v.getType()) << ")";
  if (isFloatElem(v.getType())) return wrap(mlir::math::AbsFOp::create(s.builder, l, v));
  if (isBoolElem(v.getType())) return wrap(v);
  return wrap(mlir::math::AbsIOp::create(s.builder, l, v));
}

} // namespace tile
