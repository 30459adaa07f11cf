//===- Reduce.h - tile.reduce for the CPU executor ------------------------===//
// Private to compiler/lib/CPU. The order of the combination (which floating-point sums
// depend on) is documented in Reduce.cpp.
#ifndef TILE_CPU_REDUCE_H
#define TILE_CPU_REDUCE_H

#include "KernelLowering.h"

namespace mlir::tile::cpu {

/// A tile.reduce along any axis; a tensor result gets a buffer, a scalar one stays SSA.
void lowerReduce(KernelLowering &lowering, ReduceOp op);

} // namespace mlir::tile::cpu

#endif
