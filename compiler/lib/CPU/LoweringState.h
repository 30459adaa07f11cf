//===- LoweringState.h - builder, buffers and chunk loops of one kernel ---===//
// Private to compiler/lib/CPU. What every part of tile-lower-to-cpu shares while one
// kernel is rewritten: the builder and the current location, the lowered scalars, the
// stack buffers of materialised tensors, the chunk-width policy, the checking-mode
// sites and the error flag. The state is private; the op lowerings go through these
// methods, so each rule (i1 stored as a byte, buffers allocated once per call at the
// top of the function) is written once.
//
// A chunk is a 1-D vector of `w` consecutive elements along the last dimension, starting
// at the n-D index `idx` (idx.back() is a multiple of w). So every tensor op lowers to an
// op on vector<w x T>, and arith/math ops convert by type only.
#ifndef TILE_CPU_LOWERINGSTATE_H
#define TILE_CPU_LOWERINGSTATE_H

#include "tile/Analysis/AxisInfo.h"
#include "tile/Dialect/Tile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"

#include <string>
#include <vector>

namespace mlir::tile::cpu {

class LoweringState {
public:
  LoweringState(func::FuncOp kernel, int64_t chunkMax, bool check);

  // ---- Building ----
  OpBuilder &builder() { return b; }
  /// The location new ops get: the kernel op being lowered.
  Location loc() const { return currentLoc; }
  void setLoc(Location l) { currentLoc = l; }
  /// Buffers are created before `anchor` (at the top of the new function), whatever
  /// region asks for one: allocated once per call, not once per loop iteration.
  void setAllocationPoint(Operation *anchor) { allocB.setInsertionPoint(anchor); }

  // ---- Types ----
  /// Element type of values in vectors/scalars: pointers become i64 addresses.
  Type valueElem(Type elem);
  /// Element type in buffers and in memory: i1 is stored as a byte.
  Type memElem(Type elem);
  VectorType vecOf(Type tensorOrElem, int64_t w);
  static RankedTensorType tensorType(Value v) { return dyn_cast<RankedTensorType>(v.getType()); }

  // ---- Constants ----
  Value cIndex(int64_t v);
  Value cInt(Type t, int64_t v);

  // ---- Chunk loops ----
  /// Loops over `shape` in chunks of `w` along the last dimension; `body` gets the index.
  void forEachChunk(ArrayRef<int64_t> shape, int64_t w, function_ref<void(ArrayRef<Value>)> body);
  /// Chunk width for a last dimension of `n` elements (a divisor of n, at most `chunkMax`).
  int64_t widthFor(int64_t n) const;
  /// Largest power of two <= chunkMax dividing n (reductions need a power of two).
  int64_t pow2WidthFor(int64_t n) const;
  /// The widest chunk (the pass's `chunk` option).
  int64_t maxChunkWidth() const { return chunkMax; }

  // ---- Buffers of materialised tensors ----
  /// A fresh row-major stack buffer for a tensor of type `t`.
  Value allocBuffer(RankedTensorType t);
  Value loadChunk(Value buffer, Type elem, ArrayRef<Value> idx, int64_t w);
  void storeChunk(Value buffer, Type elem, Value chunkValue, ArrayRef<Value> idx);
  /// The same row-major buffer seen with another shape of as many elements (a view, no copy).
  Value viewAs(Value buffer, ArrayRef<int64_t> shape);
  /// The buffer holding tensor `v` of the kernel, or a null Value where `v` is lazy.
  Value existingBuffer(Value v) const { return buffers.lookup(v); }
  /// From now on tensor `v` is read from `buffer`.
  void setBuffer(Value v, Value buffer) { buffers[v] = buffer; }
  /// How many tensors have a buffer (names the globals of constants uniquely).
  size_t numBuffers() const { return buffers.size(); }
  /// Bytes of stack the buffers of one call take.
  int64_t stackBytes() const { return stackBytesTotal; }

  // ---- Scalars ----
  /// Kernel scalar `v` is `lowered` in the new function.
  void mapScalar(Value v, Value lowered) { scalars.map(v, lowered); }
  /// The lowered scalar for scalar `v` of the kernel.
  Value scalar(Value v);

  // ---- Checking mode ----
  bool checking() const { return check; }
  /// The checking-mode site id of a memory op (index into sites()).
  int32_t siteOf(Operation *op);
  /// "file:line:col\top" of every site, in id order.
  const std::vector<std::string> &sites() const { return siteNames; }

  // ---- Analysis and errors ----
  /// The axis analysis proves the w addresses of every chunk of `ptr` consecutive.
  bool hasAxisContiguity(Value ptr, int64_t w);
  /// Reports an op the CPU executor cannot lower; returns a zero of `type` to go on with.
  Value unsupported(Operation *op, Type type);
  bool hasFailed() const { return failed; }

private:
  OpBuilder b;
  Location currentLoc;
  OpBuilder allocB; ///< at the top of the new function: buffers are allocated once per call
  int64_t chunkMax;
  bool check;
  AxisInfoAnalysis axis;

  IRMapping scalars;
  llvm::DenseMap<Value, Value> buffers;
  std::vector<std::string> siteNames;
  llvm::DenseMap<Operation *, int32_t> siteIds;
  int64_t stackBytesTotal = 0;
  bool failed = false;
};

} // namespace mlir::tile::cpu

#endif
