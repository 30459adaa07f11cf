//===- TileToLLVM.h - shared pieces of the tile → LLVM/NVVM lowering ------===//
#ifndef TILE_CONVERSION_TILETOLLVM_H
#define TILE_CONVERSION_TILETOLLVM_H

#include "ThreadLayout.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tile {

/// Tensors become the scalars their layout gives one thread (1:N); tile pointers
/// become LLVM global-memory pointers.
class TileTypeConverter : public TypeConverter {
public:
  explicit TileTypeConverter(MLIRContext *ctx);
};

/// The static shared-memory buffer all reductions and layout conversions of a kernel
/// reuse (each use is fenced by barriers), and its required size.
class SharedMemory {
public:
  explicit SharedMemory(LLVM::GlobalOp global) : global(global) {}
  /// Address of the buffer (addrspace 3), asking for at least `bytes`.
  Value base(OpBuilder &b, Location loc, unsigned bytes);
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
/// Bytes one element occupies in shared memory.
unsigned sharedBytesOf(Type elemType);

/// The operands of a 1:N-converted op at one register, or the single value of a scalar.
inline Value regOf(ValueRange values, unsigned r) { return values.size() == 1 ? values[0] : values[r]; }

void populateElementwisePatterns(TileTypeConverter &converter, RewritePatternSet &patterns);
void populateShapeOpPatterns(TileTypeConverter &converter, RewritePatternSet &patterns,
                             SharedMemory &smem);
void populateMemoryOpPatterns(TileTypeConverter &converter, RewritePatternSet &patterns);
void populateReducePatterns(TileTypeConverter &converter, RewritePatternSet &patterns,
                            SharedMemory &smem);
/// tile.dot on CUDA cores and tile.trans (a permutation of the layout).
void populateDotPatterns(TileTypeConverter &converter, RewritePatternSet &patterns);

} // namespace mlir::tile

#endif
