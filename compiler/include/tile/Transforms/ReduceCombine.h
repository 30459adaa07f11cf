//===- ReduceCombine.h - the combine step of tile.reduce ------------------===//
// Shared by the GPU and CPU lowerings so both executors combine partial results the
// same way: max/min propagate NaN (arith.maximumf), argmax/argmin ties go to the smaller
// index whatever order partials meet in. Works on scalars and vectors alike.
#ifndef TILE_TRANSFORMS_REDUCECOMBINE_H
#define TILE_TRANSFORMS_REDUCECOMBINE_H

#include "tile/Dialect/Tile.h"

#include "mlir/IR/Builders.h"

namespace mlir::tile {

/// A partial result: a value and, for argmax/argmin, its index (i32).
struct ReducePartial {
  Value value, index;
};

ReducePartial combineReduce(OpBuilder &b, Location loc, ReduceKind kind, ReducePartial x, ReducePartial y);

} // namespace mlir::tile

#endif
