//===- ThreadLayout.h - which elements of a tensor each thread holds ------===//
// What every lowering pattern asks of a tensor's layout, whatever the layout is
// (#tile.blocked, #tile.slice of any of them, #tile.mma, #tile.dot_operand,
// #tile.linear): its linear layout over GF(2) (DistributedLayoutInterface::
// toLinearLayout, tile/Layout/LinearLayout.h). A thread holds numRegs() elements
// ("registers"); the coordinate of register r of thread (lane, warp) is the XOR of the
// bases of the set bits of r, lane and warp. The lane's and warp's part is computed once
// per thread (emitThreadPosition); each register adds a constant. Copies of one element
// (zero or dependent bases) are told apart by the layout's free variables: the holder
// whose free bits are all zero is the element's owner.
#ifndef TILE_CONVERSION_THREADLAYOUT_H
#define TILE_CONVERSION_THREADLAYOUT_H

#include "tile/Dialect/Tile.h"
#include "tile/Layout/LinearLayout.h"

#include "mlir/IR/Builders.h"

namespace mlir::tile {

class ThreadLayout {
public:
  /// For a tensor type whose encoding is a distributed layout.
  static ThreadLayout get(RankedTensorType type);

  unsigned rank() const { return shape.size(); }
  /// Registers per thread.
  unsigned numRegs() const;
  /// Registers per thread of a value of type `t`: a tensor's in its layout, 1 for a scalar.
  static unsigned regsOf(Type t);
  /// Register r's own (constant) part of the coordinate along tensor dimension d.
  int32_t regCoord(unsigned r, unsigned d) const;
  /// True when register r holds a copy of an element another register of the same
  /// thread holds too (one of its set bits is a free variable).
  bool isRegisterReplica(unsigned r) const { return r & freeRegisterBits; }

  SmallVector<int64_t> shape;
  /// (register, lane, warp) -> the tensor's dimensions.
  ::tile::layout::LinearLayout linear;
  /// Free variables (LinearLayout::getFreeVariableMasks) per input dimension.
  int32_t freeRegisterBits = 0, freeLaneBits = 0, freeWarpBits = 0;
};

/// The thread's lane and warp, and its part of every coordinate.
struct ThreadPosition {
  Value lane, warp;
  /// Per tensor dimension, the XOR of the lane's and the warp's bases: a register's
  /// coordinate is this XOR the register's own (constant) part.
  SmallVector<Value> threadPart;
};

/// Small helpers for i32 arithmetic emitted by the lowering (arith dialect, lowered later).
struct IntBuilder {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) const;
  Value add(Value x, Value y) const;
  Value mul(Value x, Value y) const;
  Value udiv(Value x, int64_t d) const;
  Value urem(Value x, int64_t d) const;
  Value ult(Value x, int64_t bound) const;
  Value eq(Value x, int64_t v) const;
  Value andi(Value x, Value y) const;
};

ThreadPosition emitThreadPosition(OpBuilder &b, Location loc, const ThreadLayout &layout);
/// `value`, the same in every lane of a warp (a warp or warpgroup index), as lane 0's, broadcast
/// by shfl.sync idx (CUTLASS's canonical_warp_idx): ptxas then knows it is warp-uniform, so a
/// branch on it does not diverge and what derives from it may live in uniform registers.
Value warpUniform(OpBuilder &b, Location loc, Value value);

/// The lane's and warp's part of output dimension `outDim` of `ll`: the XOR of the bases
/// of the set bits of `lane` and `warp`, emitted once per thread. `usedBits`, if given,
/// receives the OR of those bases (the output bits the part can touch).
Value emitThreadPart(OpBuilder &b, Location loc, const ::tile::layout::LinearLayout &ll, Value lane, Value warp,
                     unsigned outDim, int32_t *usedBits = nullptr);
/// Register r's own (constant) part of output dimension `outDim`: the XOR of its bits' bases.
int32_t registerPart(const ::tile::layout::LinearLayout &ll, unsigned r, unsigned outDim);

/// Coordinate (i32) of register r along tensor dimension d.
Value emitCoord(OpBuilder &b, Location loc, const ThreadLayout &layout, const ThreadPosition &pos, unsigned r,
                unsigned d);

/// i1 that is true in the threads whose lane and warp free bits are zero (they hold the
/// first copy of each of their elements); null when no lane or warp holds a copy.
Value emitIsOwnerThread(OpBuilder &b, Location loc, const ThreadLayout &layout, const ThreadPosition &pos);

/// Moves b's insertion point into an scf.if on emitIsOwnerThread (when there is one), so
/// that what follows runs only in the threads that own their elements: writes to shared
/// memory then come from one thread per address. The caller restores the insertion point
/// (OpBuilder::InsertionGuard); skipping replica registers is left to it.
void enterOwnerThreads(OpBuilder &b, Location loc, const ThreadLayout &layout, const ThreadPosition &pos);

/// i1 that is true for the one (register, lane, warp) holding the first copy of register
/// r's element (the one whose free variables are zero); null when every thread owns its
/// register r (no lane or warp copies, and r is no replica of another register).
Value emitIsOwner(OpBuilder &b, Location loc, const ThreadLayout &layout, const ThreadPosition &pos, unsigned r);

/// For each register of `dst`, a register of `src` holding the same element in the same
/// thread, where both layouts agree on the dimensions `dstToSrc` maps (dst dimension ->
/// src dimension, -1: ignored, e.g. a broadcast or inserted dimension). Empty when the
/// lanes and warps of the two place those coordinates differently (data would move).
SmallVector<unsigned> matchRegisters(const ThreadLayout &src, const ThreadLayout &dst, ArrayRef<int> dstToSrc);

} // namespace mlir::tile

#endif
