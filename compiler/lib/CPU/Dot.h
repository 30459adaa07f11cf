//===- Dot.h - tile.dot for the CPU executor ------------------------------===//
// Private to compiler/lib/CPU. The arithmetic agrees bit for bit with the GPU's FMA path
// (Dot.cpp says how).
#ifndef TILE_CPU_DOT_H
#define TILE_CPU_DOT_H

#include "KernelLowering.h"

namespace mlir::tile::cpu {

/// A tile.dot into a fresh f32 buffer.
void lowerDot(KernelLowering &lowering, DotOp op);

} // namespace mlir::tile::cpu

#endif
