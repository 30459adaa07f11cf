//===- Preconditions.h - what a pass needs of its input --------------------===//
// Every pass may run alone (tile-opt --<pass>, fuzz_ir_pipeline's sub-sequences), so each one
// checks at the start of runOnOperation that its input is at the stage of the pipeline it was
// written for, and otherwise fails with one diagnostic at the first offending op that names
// the missing step:
//   error: tile-coalesce needs layouts: run --tile-assign-layouts first
// rather than crashing on an assumption (a layout to take apart, a warp count to divide by).
// Each pass that can fail this way is listed in test/lit/Transforms/preconditions.mlir.
#ifndef TILE_TRANSFORMS_PRECONDITIONS_H
#define TILE_TRANSFORMS_PRECONDITIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::tile {

/// The first op, in program order, that defines a value of a type `bad` holds for: the op of
/// a result, the op owning a block's arguments, a function whose signature has one; else null.
/// What the checks below report at.
Operation *firstDefining(ModuleOp module, function_ref<bool(Type)> bad);

/// For the passes after tile-assign-layouts (the GPU path): every tensor value (op result,
/// block argument) carries a #tile distributed layout. Else emits "<pass> needs layouts:
/// run --tile-assign-layouts first" at the first op without one and fails.
LogicalResult requireLayouts(ModuleOp module, StringRef pass);

/// For the passes that take traced IR (tile-lower-to-cpu): no tensor carries a layout and
/// no value is a shared-memory buffer (what the GPU passes make). Else emits "<pass> takes
/// traced IR without layouts, not the GPU passes' output" at the first such op and fails.
LogicalResult requireLayoutFree(ModuleOp module, StringRef pass);

/// For the passes that start from a traced kernel (tile-assign-layouts, tile-lower-to-cpu):
/// its arguments are scalars, pointers or descriptors (a tensor has no producer to take a
/// layout or a buffer from) and it returns nothing (results leave through tile.store).
/// Else emits why at the kernel and fails.
LogicalResult requireTracedSignature(func::FuncOp kernel);

} // namespace mlir::tile

#endif
