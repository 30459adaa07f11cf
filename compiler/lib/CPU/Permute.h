//===- Permute.h - tile.trans and tile.reshape for the CPU executor -------===//
// Private to compiler/lib/CPU. Both move elements between row-major stack buffers
// without computing on them (Permute.cpp says how).
#ifndef TILE_CPU_PERMUTE_H
#define TILE_CPU_PERMUTE_H

#include "KernelLowering.h"

namespace mlir::tile::cpu {

void lowerTrans(KernelLowering &lowering, TransOp op);
/// The result is a view of the source's buffer where nothing else can write it, else a copy.
void lowerReshape(KernelLowering &lowering, ReshapeOp op);

} // namespace mlir::tile::cpu

#endif
