//===- KernelLowering.h - tile IR to chunked vector code, one kernel ------===//
// Private to compiler/lib/CPU. One KernelLowering rewrites one kernel function into a
// function that runs a single program instance on the host.
//
// Representation of a tensor value of the kernel while lowering:
//  - lazy: recomputed chunk by chunk where it is used. Two kinds: "cheap" values (splats,
//    ranges, constants and arith on them: index arithmetic) may be recomputed at every
//    use; other lazy values have exactly one user in the same block and are fused into
//    the loop of that user ("root": a store, a reduction, a materialisation, a yield).
//  - materialised: computed once into a stack buffer (memref.alloca, row-major) by its
//    own chunk loop; uses read chunks back with vector.load.
// This class owns that plan, evaluates chunks of lazy values (the shape ops here, memory
// and arithmetic through Memory.h and Elementwise.h) and rebuilds the kernel's structure
// (LowerToCPU.cpp: ops in order; ControlFlow.cpp: scf.for and scf.if with tensor values).
// The op lowerings (Memory.h, Reduce.h, Dot.h, Permute.h) use its public methods and
// those of LoweringState (LoweringState.h).
#ifndef TILE_CPU_KERNELLOWERING_H
#define TILE_CPU_KERNELLOWERING_H

#include "LoweringState.h"

#include "llvm/ADT/DenseSet.h"

namespace mlir::tile::cpu {

class KernelLowering : public LoweringState {
public:
  KernelLowering(func::FuncOp kernel, int chunk, bool check);
  /// Builds the per-program function next to the kernel and erases the kernel.
  LogicalResult run();

  /// The chunk [idx, idx + w) of tensor `v` along its last dimension.
  Value chunk(Value v, ArrayRef<Value> idx, int64_t w);
  /// A row-major buffer holding `v`: its own, or a fresh one `v` is materialised into
  /// (`*fresh` says which; a fresh one nothing else reads or writes).
  Value bufferOf(Value v, bool *fresh = nullptr);

private:
  func::FuncOp kernel;
  func::FuncOp fn; ///< the function being built
  llvm::DenseSet<Value> lazy;
  llvm::DenseMap<Value, bool> cheapMemo;
  llvm::DenseMap<Operation *, Operation *> rootOf; ///< lazy op -> the op that evaluates it
  Value programId[3], numPrograms[3];

  // Planning (KernelLowering.cpp).
  void plan(Block &block);
  bool isCheap(Value v);
  bool producesBuffer(Operation *op) const;

  // Lazy values (KernelLowering.cpp).
  /// The chunk of `v` computed from its defining op, ignoring any buffer of `v`.
  Value evalOp(Value v, ArrayRef<Value> idx, int64_t w);
  /// Evaluates `v` into `buffer` (same shape), chunk by chunk; `fromDefinition`: from
  /// v's defining op even where v already has a buffer (that is being filled).
  void materializeInto(Value v, Value buffer, bool fromDefinition);

  // Structure (LowerToCPU.cpp, ControlFlow.cpp).
  void emitBlock(Block &block);
  void emitOp(Operation &op);
  /// A non-splat constant tensor: a read-only global.
  void emitConstantBuffer(arith::ConstantOp op);
  void emitFor(scf::ForOp op);
  void emitIf(scf::IfOp op);
  /// Writes tensor `values[i]` into `targets[i]` as one parallel assignment.
  void assignBuffers(ArrayRef<Value> values, ArrayRef<Value> targets);
  /// The buffers a lazy value reads; `remaps`: some read another element than written.
  void collectLeaves(Value v, llvm::DenseSet<Value> &leafBuffers, bool &remaps);
};

} // namespace mlir::tile::cpu

#endif
