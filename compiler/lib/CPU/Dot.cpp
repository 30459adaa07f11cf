//===- Dot.cpp - tile.dot for the CPU executor ----------------------------===//
// The arithmetic is the one TileOps.td documents, so that the GPU's FMA path agrees bit
// for bit: result[m, n] = fma(a[m, K-1], b[K-1, n], ... fma(a[m, 0], b[0, n], acc[m, n])),
// in f32, one fused multiply-add per product in increasing k. The factors are the inputs
// widened to f32 (exact for f16/bf16) and, for input_precision tf32, rounded to tf32
// first as cvt.rna.tf32.f32 does (nearest, ties away from zero; NaN and inf unchanged).
//
// Shape of the code: a and b are converted once into row-major f32 stack buffers (lazy
// operands, such as the loads of a K loop, are fused into that conversion); then for
// each row m and each chunk of w columns, a loop over k broadcasts a[m, k] and
// accumulates it times the chunk b[k, n0 .. n0+w) with one vector fma.
#include "Dot.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::cpu;

namespace {
/// cvt.rna.tf32.f32 on a vector of f32: add half an ulp of tf32 (bit 12) to the
/// magnitude and keep 10 explicit mantissa bits. Adding to the whole word is the same,
/// as a finite magnitude plus 0x1000 never reaches the sign bit (it may carry into the
/// exponent: the largest values round to infinity, as on the GPU).
Value roundToTF32(OpBuilder &b, Location loc, Value v) {
  auto bitsType = cast<VectorType>(v.getType()).clone(b.getI32Type());
  auto c = [&](uint32_t x) -> Value {
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(bitsType, b.getI32IntegerAttr(int32_t(x))));
  };
  Value bits = arith::BitcastOp::create(b, loc, bitsType, v);
  Value magnitude = arith::AndIOp::create(b, loc, bits, c(0x7fffffffu));
  Value finite = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, magnitude, c(0x7f800000u));
  // One statement per op: the order of function arguments' evaluation (which op is created
  // first) is the compiler's choice, and the IR must not depend on the host compiler.
  Value clear = c(0xffffe000u);
  Value up = arith::AddIOp::create(b, loc, bits, c(0x1000u));
  Value rounded = arith::AndIOp::create(b, loc, up, clear);
  return arith::BitcastOp::create(b, loc, v.getType(), arith::SelectOp::create(b, loc, finite, rounded, bits));
}
} // namespace

void mlir::tile::cpu::lowerDot(KernelLowering &lowering, DotOp op) {
  OpBuilder &b = lowering.builder();
  Location loc = lowering.loc();
  const bool tf32 = op.getInputPrecision() == InputPrecision::TF32;
  Type f32 = b.getF32Type();
  // A row-major f32 buffer of an operand's factors: its own buffer where it has one and
  // nothing needs converting, otherwise a fresh one filled by one chunk loop.
  auto factors = [&](Value v) -> Value {
    RankedTensorType t = lowering.tensorType(v);
    bool convert = !t.getElementType().isF32() || tf32;
    if (!convert)
      if (Value buffer = lowering.existingBuffer(v)) return buffer;
    Value buf = lowering.allocBuffer(RankedTensorType::get(t.getShape(), f32));
    int64_t w = lowering.widthFor(t.getShape().back());
    lowering.forEachChunk(t.getShape(), w, [&](ArrayRef<Value> idx) {
      Value c = lowering.chunk(v, idx, w);
      if (!t.getElementType().isF32()) c = arith::ExtFOp::create(b, loc, VectorType::get({w}, f32), c); // exact
      if (tf32) c = roundToTF32(b, loc, c);
      lowering.storeChunk(buf, f32, c, idx);
    });
    return buf;
  };
  Value a = factors(op.getA()), bf = factors(op.getB());

  RankedTensorType resultType = lowering.tensorType(op.getResult());
  const int64_t k = lowering.tensorType(op.getA()).getShape()[1];
  const int64_t w = lowering.widthFor(resultType.getShape()[1]);
  auto vt = VectorType::get({w}, f32);
  Value result = lowering.allocBuffer(resultType);
  lowering.forEachChunk(resultType.getShape(), w, [&](ArrayRef<Value> idx) {
    Value m = idx[0], n0 = idx[1];
    auto loop = scf::ForOp::create(b, loc, lowering.cIndex(0), lowering.cIndex(k), lowering.cIndex(1),
                                   ValueRange{lowering.chunk(op.getAcc(), idx, w)});
    {
      OpBuilder::InsertionGuard guard(b);
      Block *body = loop.getBody();
      if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>()) body->back().erase();
      b.setInsertionPointToEnd(body);
      Value kk = loop.getInductionVar();
      Value x = vector::BroadcastOp::create(b, loc, vt, memref::LoadOp::create(b, loc, a, ValueRange{m, kk}));
      Value y = vector::LoadOp::create(b, loc, vt, bf, ValueRange{kk, n0});
      scf::YieldOp::create(b, loc, Value(math::FmaOp::create(b, loc, x, y, loop.getRegionIterArgs()[0])));
    }
    lowering.storeChunk(result, f32, loop.getResult(0), idx);
  });
  lowering.setBuffer(op.getResult(), result);
}
