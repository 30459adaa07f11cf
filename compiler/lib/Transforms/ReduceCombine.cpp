//===- ReduceCombine.cpp --------------------------------------------------===//
#include "tile/Transforms/ReduceCombine.h"

#include <cassert>

using namespace mlir;
using namespace mlir::tile;

ReducePartial mlir::tile::combineReduce(OpBuilder &b, Location loc, ReduceKind kind, ReducePartial x, ReducePartial y) {
  assert(x.value.getType() == y.value.getType() && "combining partials of different types");
  bool isFloat = isa<FloatType>(getElementTypeOrSelf(x.value.getType()));
  switch (kind) {
  case ReduceKind::Sum:
    return {isFloat ? Value(arith::AddFOp::create(b, loc, x.value, y.value))
                    : Value(arith::AddIOp::create(b, loc, x.value, y.value)),
            {}};
  case ReduceKind::Max:
    return {isFloat ? Value(arith::MaximumFOp::create(b, loc, x.value, y.value))
                    : Value(arith::MaxSIOp::create(b, loc, x.value, y.value)),
            {}};
  case ReduceKind::Min:
    return {isFloat ? Value(arith::MinimumFOp::create(b, loc, x.value, y.value))
                    : Value(arith::MinSIOp::create(b, loc, x.value, y.value)),
            {}};
  case ReduceKind::ArgMax:
  case ReduceKind::ArgMin: {
    assert(x.index && y.index && "an arg reduction's partials carry their index");
    bool isMax = kind == ReduceKind::ArgMax;
    Value better, equal;
    if (isFloat) {
      better = arith::CmpFOp::create(b, loc, isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, y.value,
                                     x.value);
      equal = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, y.value, x.value);
    } else {
      better = arith::CmpIOp::create(b, loc, isMax ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt, y.value,
                                     x.value);
      equal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y.value, x.value);
    }
    Value smallerIndex = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, y.index, x.index);
    Value takeY = arith::OrIOp::create(b, loc, better, arith::AndIOp::create(b, loc, equal, smallerIndex));
    return {arith::SelectOp::create(b, loc, takeY, y.value, x.value),
            arith::SelectOp::create(b, loc, takeY, y.index, x.index)};
  }
  }
  llvm_unreachable("unknown reduce kind");
}
