//===- TmaRecord.h - the TMA maps a kernel's launch must encode -----------===//
// tile-pipeline (TMA loads) and tile-tma-stores record on the module, per descriptor
// parameter copied by the tensor memory accelerator, the map the launch encodes for it:
// element type, swizzle and box (a #tile.tma_map in the module's kTmaMapsAttr; lib/Compiler.cpp
// turns each into an rt::TmaParam of LaunchMetadata::tma).
#ifndef TILE_TRANSFORMS_TMARECORD_H
#define TILE_TRANSFORMS_TMARECORD_H

#include "tile/Dialect/Tile.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::tile {

/// The TMA box that moves one column group of `buffer` (a 2-D #tile.nvmma_shared tile): rows
/// (at most TMA's 256) by the swizzle's width, outermost first. A copy issues one per column
/// group and 256-row chunk (the lowering of tile.async_tma_load / tile.async_tma_store).
SmallVector<int32_t, 2> tmaBox(MemDescType buffer);

/// Records that launches must encode a TMA map for descriptor parameter `arg` moving `buffer`
/// (`roundTf32`: f32 rounded to tf32 by the copy); false when the parameter already has
/// another map (one box per descriptor: the caller then keeps its ordinary loads or stores).
bool recordTma(ModuleOp module, BlockArgument arg, MemDescType buffer, bool roundTf32);

} // namespace mlir::tile

#endif
