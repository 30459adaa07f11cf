//===- TileToLLVM.h - shared pieces of the tile → LLVM/NVVM lowering ------===//
#ifndef TILE_CONVERSION_TILETOLLVM_H
#define TILE_CONVERSION_TILETOLLVM_H

#include "ThreadLayout.h"
#include "tile/Analysis/SharedMemory.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

#include <map>
#include <string>

namespace mlir::tile {

/// Tensors become the scalars their layout gives one thread (1:N); tile pointers
/// become LLVM global-memory pointers.
class TileTypeConverter : public TypeConverter {
public:
  explicit TileTypeConverter(MLIRContext *ctx);
};

/// The kernel's dynamic shared memory. tile-allocate-shared places every buffer and
/// every op's scratch in it (tile.offset / tile.scratch_offset) and tile-insert-barriers
/// fences the accesses; the lowering only turns offsets into addresses and records the
/// size the kernel needs at launch.
class SharedMemory {
public:
  explicit SharedMemory(LLVM::GlobalOp global) : global(global) {}
  /// Address `offset` bytes in (addrspace 3), for an access reaching `bytes` beyond it.
  Value at(OpBuilder &b, Location loc, unsigned offset, unsigned bytes);
  /// The scratch of `op`: at its tile.scratch_offset (0 when allocation did not run,
  /// as in lit tests of the conversion alone).
  Value scratch(OpBuilder &b, Location loc, Operation *op, unsigned bytes);
  unsigned bytes() const { return required; }
  LLVM::GlobalOp global;

private:
  unsigned required = 0;
};

/// Element `index` of type `elemType` in shared memory at `base`.
Value sharedElementPtr(OpBuilder &b, Location loc, Value base, Type elemType, Value index);
/// Shared memory holds i1 as i8.
Type sharedStorageType(Type elemType);
Value toShared(OpBuilder &b, Location loc, Value v);
Value fromShared(OpBuilder &b, Location loc, Value v, Type elemType);
/// f32 `v` rounded to tf32 (cvt.rna: to nearest, ties away from zero; sm_80+), as an f32.
Value roundToTf32(OpBuilder &b, Location loc, Value v);

/// Consecutive registers one access of `op` moves (its kVecAttr, from tile-coalesce; 1 if absent).
inline unsigned vecOf(Operation *op) { return vectorWidth(op).value_or(1); }

/// The operands of a 1:N-converted op at one register, or the single value of a scalar.
inline Value regOf(ValueRange values, unsigned r) { return values.size() == 1 ? values[0] : values[r]; }

void populateElementwisePatterns(TileTypeConverter &converter, RewritePatternSet &patterns);
/// Scalar math ops with the `afn` fast-math flag → the GPU's approximate instructions (ApproximateMath.cpp).
void populateApproximateMathPatterns(const LLVMTypeConverter &converter, RewritePatternSet &patterns);
void populateShapeOpPatterns(TileTypeConverter &converter, RewritePatternSet &patterns, SharedMemory &smem);
void populateMemoryOpPatterns(TileTypeConverter &converter, RewritePatternSet &patterns);
/// tile.atomic_rmw and tile.atomic_cas (Atomics.cpp).
void populateAtomicPatterns(TileTypeConverter &converter, RewritePatternSet &patterns, SharedMemory &smem);
void populateReducePatterns(TileTypeConverter &converter, RewritePatternSet &patterns, SharedMemory &smem);
/// tile.dot on CUDA cores and tile.trans (a permutation of the layout).
void populateDotPatterns(TileTypeConverter &converter, RewritePatternSet &patterns);
void populateWarpGroupDotPatterns(TileTypeConverter &converter, RewritePatternSet &patterns);
void populateDescriptorPatterns(TileTypeConverter &converter, RewritePatternSet &patterns);
/// Buffers (tile.local_*), cp.async copies and barriers.
void populateSharedMemoryPatterns(TileTypeConverter &converter, RewritePatternSet &patterns, SharedMemory &smem);

/// tile.warp_specialize and tile.barrier_arrive.
void populateWarpSpecializePatterns(TileTypeConverter &converter, RewritePatternSet &patterns);
/// Before the conversion: tells each op of a tile.warp_specialize region which threads run it
/// (emitIsLeader, emitProgramBarrier). Returns the warps each kernel with one launches (by name).
std::map<std::string, int64_t> markWarpPartitions(ModuleOp module);
/// Whether this thread is the one that issues `op`'s single-thread work: thread 0, or in a
/// warp-specialised producer the producer's first thread.
Value emitIsLeader(OpBuilder &b, Location loc, Operation *op);
/// Emits `body` in a branch taken where `condition` (built before the branch) holds, for
/// instructions without a predicate operand; the rewriter continues after the branch.
void emitIf(ConversionPatternRewriter &rewriter, Location loc, llvm::function_ref<Value()> condition,
            llvm::function_ref<void()> body);
/// A barrier of every thread that runs `op`: bar.sync 0, or among a warp-specialised
/// kernel's consumers a named barrier over them alone.
void emitProgramBarrier(OpBuilder &b, Location loc, Operation *op);

} // namespace mlir::tile

#endif
