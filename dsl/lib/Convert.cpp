//===- Convert.cpp - constants, element conversions, broadcasting ---------===//
// The building blocks of Triton's implicit conversions, shared by arithmetic, memory ops
// and tensor creation.
#include "State.h"

#include <cmath>

namespace tile::detail {

/// Whether integer `v` is representable in `width` bits, signed or unsigned (so that both
/// -1 and 0xffffffff are accepted for i32, as C++ programmers write bit masks).
static bool fitsInt(int64_t v, unsigned width) {
  if (width >= 64) return true;
  int64_t lo = -(int64_t(1) << (width - 1));
  int64_t hi = (int64_t(1) << width) - 1;
  return v >= lo && v <= hi;
}

mlir::Value makeConstant(TraceState &s, mlir::Location l, const SrcLoc &loc, mlir::Type type, bool isFloatValue,
                         int64_t i, double f) {
  mlir::Type elem = mlir::getElementTypeOrSelf(type);
  mlir::TypedAttr attr;
  if (auto ft = mlir::dyn_cast<mlir::FloatType>(elem)) {
    attr = mlir::FloatAttr::get(ft, isFloatValue ? f : static_cast<double>(i));
  } else if (auto it = mlir::dyn_cast<mlir::IntegerType>(elem)) {
    int64_t v = i;
    if (isFloatValue) {
      if (!std::isfinite(f) || std::fabs(f) > 9.2e18)
        fail(loc) << "the number " << f << " cannot be represented as " << typeStr(elem);
      v = static_cast<int64_t>(f); // truncation toward zero, as a C++ cast
    }
    unsigned w = it.getWidth();
    if (!fitsInt(v, w)) fail(loc) << "the integer " << v << " does not fit in " << typeStr(elem);
    attr =
        mlir::IntegerAttr::get(it, llvm::APInt(w, static_cast<uint64_t>(v), /*isSigned=*/true, /*implicitTrunc=*/true));
  } else {
    fail(loc) << "a number cannot be used as a " << typeStr(type);
  }
  if (auto st = mlir::dyn_cast<mlir::RankedTensorType>(type))
    return mlir::arith::ConstantOp::create(s.builder, l, mlir::DenseElementsAttr::get(st, attr));
  return mlir::arith::ConstantOp::create(s.builder, l, attr);
}

/// 0 of v's type (for comparisons against zero when converting to i1).
static mlir::Value zeroLike(TraceState &s, mlir::Location l, mlir::Value v) {
  return makeConstant(s, l, SrcLoc::current(), v.getType(), false, 0, 0.0);
}

mlir::Value convertElem(TraceState &s, mlir::Location l, mlir::Value v, mlir::Type to) {
  namespace arith = mlir::arith;
  mlir::Type from = mlir::getElementTypeOrSelf(v.getType());
  if (from == to) return v;
  mlir::Type rt = withElem(v.getType(), to);
  mlir::OpBuilder &b = s.builder;
  auto ff = mlir::dyn_cast<mlir::FloatType>(from), tf = mlir::dyn_cast<mlir::FloatType>(to);
  if (ff && tf) {
    if (ff.getWidth() == tf.getWidth()) { // f16 <-> bf16: through f32, exactly as Triton
      mlir::Type f32 = mlir::Float32Type::get(s.ctx);
      mlir::Value wide = arith::ExtFOp::create(b, l, withElem(v.getType(), f32), v);
      return arith::TruncFOp::create(b, l, rt, wide);
    }
    if (ff.getWidth() < tf.getWidth()) return arith::ExtFOp::create(b, l, rt, v);
    return arith::TruncFOp::create(b, l, rt, v);
  }
  if (tf) { // int -> float; i1 is unsigned (true -> 1.0)
    if (from.isInteger(1)) return arith::UIToFPOp::create(b, l, rt, v);
    return arith::SIToFPOp::create(b, l, rt, v);
  }
  if (to.isInteger(1)) { // anything -> bool is "!= 0"
    if (ff) return arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE, v, zeroLike(s, l, v));
    return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, v, zeroLike(s, l, v));
  }
  if (ff) return arith::FPToSIOp::create(b, l, rt, v);
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw == 1) return arith::ExtUIOp::create(b, l, rt, v);
  if (fw < tw) return arith::ExtSIOp::create(b, l, rt, v);
  return arith::TruncIOp::create(b, l, rt, v);
}

mlir::Value broadcastTo(TraceState &s, mlir::Location l, mlir::Value v, llvm::ArrayRef<int64_t> shape) {
  mlir::Type t = v.getType();
  if (shape.empty()) {
    if (isTensorType(t)) bug() << "broadcast of a tensor to a scalar";
    return v;
  }
  auto rt = mlir::RankedTensorType::get(shape, mlir::getElementTypeOrSelf(t));
  if (!isTensorType(t)) return mlir::tile::SplatOp::create(s.builder, l, rt, v);
  if (t == mlir::Type(rt)) return v;
  return mlir::tile::BroadcastOp::create(s.builder, l, rt, v);
}

std::optional<llvm::SmallVector<int64_t>> broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b) {
  if (a.empty()) return llvm::SmallVector<int64_t>(b);
  if (b.empty()) return llvm::SmallVector<int64_t>(a);
  if (a.size() != b.size()) return std::nullopt;
  llvm::SmallVector<int64_t> r;
  for (size_t d = 0; d < a.size(); ++d) {
    if (a[d] == b[d] || b[d] == 1) r.push_back(a[d]);
    else if (a[d] == 1) r.push_back(b[d]);
    else return std::nullopt;
  }
  return r;
}

mlir::Value materialize(TraceState &s, mlir::Location l, const Operand &o, mlir::Type elem,
                        llvm::ArrayRef<int64_t> shape, const char *what) {
  if (o.kind != Operand::Kind::V)
    return makeConstant(s, l, o.loc, shaped(shape, elem), o.kind == Operand::Kind::Float, o.i, o.f);
  mlir::Value v = use(s, o.value, o.loc, what);
  auto have = shapeOf(v.getType());
  auto joined = broadcastShapes(have, shape);
  if (!joined || llvm::ArrayRef<int64_t>(*joined) != shape)
    fail(o.loc) << what << ": shape " << shapeStr(have) << " cannot be broadcast to " << shapeStr(shape);
  return broadcastTo(s, l, convertElem(s, l, v, elem), shape);
}

} // namespace tile::detail
