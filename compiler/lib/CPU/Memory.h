//===- Memory.h - loads, stores and atomics for the CPU executor ----------===//
// Private to compiler/lib/CPU. tile.load, tile.store, tile.atomic_rmw/atomic_cas and the
// descriptor field reads, on tensors (chunk by chunk) and on scalars; in checking mode
// every active access asks the runtime first (LoweringAbi.h). Memory.cpp says how.
#ifndef TILE_CPU_MEMORY_H
#define TILE_CPU_MEMORY_H

#include "KernelLowering.h"

namespace mlir::tile::cpu {

/// The chunk [idx, idx + w) of a tensor tile.load's result.
Value lowerLoadChunk(KernelLowering &lowering, LoadOp op, ArrayRef<Value> idx, int64_t w);
/// A tile.load of one element.
Value lowerScalarLoad(LoweringState &lowering, LoadOp op);
/// A tile.store, of a tensor or of one element.
void lowerStore(KernelLowering &lowering, StoreOp op);
/// A tile.atomic_rmw or tile.atomic_cas; the result (the old values) gets a buffer where
/// it is used.
void lowerAtomicRMW(KernelLowering &lowering, AtomicRMWOp op);
void lowerAtomicCAS(KernelLowering &lowering, AtomicCASOp op);
/// tile.descriptor_base / tile.descriptor_dim: a field of the descriptor's TensorDescParam.
Value lowerDescriptorField(LoweringState &lowering, Operation *op);

} // namespace mlir::tile::cpu

#endif
