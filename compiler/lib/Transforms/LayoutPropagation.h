//===- LayoutPropagation.h - tensor-core results stay in their layout -----===//
#ifndef TILE_TRANSFORMS_LAYOUTPROPAGATION_H
#define TILE_TRANSFORMS_LAYOUTPROPAGATION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::tile {

/// The #tile.mma layout of every tensor-core result flows forward through elementwise ops,
/// broadcasts, reductions (as slices), expand_dims of those slices and loop-carried values;
/// ops it does not reach get the value converted back. Returns whether anything changed.
/// Part of tile-remove-layout-conversions, whose cleanup then folds what this leaves.
bool propagateAccumulatorLayouts(func::FuncOp func);

} // namespace mlir::tile

#endif
