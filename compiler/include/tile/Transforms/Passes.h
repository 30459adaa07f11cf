//===- Passes.h - tile compiler passes ------------------------------------===//
#ifndef TILE_TRANSFORMS_PASSES_H
#define TILE_TRANSFORMS_PASSES_H

#include "tile/Dialect/Tile.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tile {

#define GEN_PASS_DECL
#include "tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tile/Transforms/Passes.h.inc"

} // namespace mlir::tile

#endif
