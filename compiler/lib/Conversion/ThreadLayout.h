//===- ThreadLayout.h - which elements of a tensor each thread holds ------===//
// The arithmetic behind #tile.blocked and #tile.slice, shared by every lowering
// pattern. A thread holds `numRegs()` elements ("registers"), enumerated with the
// layout's fastest dimension first; register r sits at coordinate
//   coord[d] = (r_d / spt[d]) * tile[d] + (warp_d * tpw[d] + lane_d) * spt[d] + r_d % spt[d]
// (mod shape[d] when the layout's tile is larger than the tensor: replication).
// The same map as a linear layout over GF(2) (tile/Layout/LinearLayout.h) is what the
// coordinates are emitted from: a coordinate is the XOR of the bases of the set bits of
// (register, lane, warp), so any layout expressed that way lowers the same way.
#ifndef TILE_CONVERSION_THREADLAYOUT_H
#define TILE_CONVERSION_THREADLAYOUT_H

#include "tile/Dialect/Tile.h"
#include "tile/Layout/LinearLayout.h"

#include "mlir/IR/Builders.h"

namespace mlir::tile {

class ThreadLayout {
public:
  /// For a tensor type whose encoding is a blocked, slice, mma or dot-operand layout.
  /// Only blocked and slice layouts fill the per-dimension fields below (spt, ...,
  /// regIndex, regNumber); every layout has `linear`, `shape` and numRegs().
  static ThreadLayout get(RankedTensorType type);

  unsigned parentRank() const { return shape.size(); }
  /// Registers per thread.
  unsigned numRegs() const;
  /// Per parent dimension register index of register r (0 along the sliced dimension).
  SmallVector<unsigned> regIndex(unsigned r) const;
  /// Register number of a per-dimension index (the sliced dimension is ignored).
  unsigned regNumber(ArrayRef<unsigned> idx) const;
  int64_t tile(unsigned d) const { return int64_t(spt[d]) * tpw[d] * wpc[d]; }
  /// True when threads hold copies of the same elements along d.
  bool replicates(unsigned d) const { return tile(d) > shape[d]; }
  /// Parent dimensions of the tensor's own dimensions (all but the sliced one).
  SmallVector<unsigned> tensorDims() const;

  SmallVector<unsigned> spt, tpw, wpc, order;
  SmallVector<int64_t> shape; ///< parent rank; 1 along the sliced dimension
  SmallVector<unsigned> nreg; ///< registers per parent dimension
  int sliceDim = -1;
  /// (register, lane, warp) -> the tensor's own dimensions.
  ::tile::layout::LinearLayout linear;
};

/// Thread position within the block, per parent dimension of a layout.
struct ThreadPosition {
  Value lane, warp;
  SmallVector<Value> laneCoord, warpCoord; ///< per parent dimension
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

/// The lane's and warp's part of output dimension `outDim` of `ll`: the XOR of the bases
/// of the set bits of `lane` and `warp`, emitted once per thread. `usedBits`, if given,
/// receives the OR of those bases (the output bits the part can touch).
Value emitThreadPart(OpBuilder &b, Location loc, const ::tile::layout::LinearLayout &ll, Value lane, Value warp,
                     unsigned outDim, int32_t *usedBits = nullptr);
/// Register r's own (constant) part of output dimension `outDim`: the XOR of its bits' bases.
int32_t registerPart(const ::tile::layout::LinearLayout &ll, unsigned r, unsigned outDim);

/// Coordinate (i32) of register r along parent dimension d, wrapped into the shape.
Value emitCoord(OpBuilder &b, Location loc, const ThreadLayout &layout, const ThreadPosition &pos,
                unsigned r, unsigned d);

/// Coordinate of register r along d before wrapping into the shape: at or past shape[d]
/// it is a replica of the element at coord mod shape[d].
Value emitUnwrappedCoord(OpBuilder &b, Location loc, const ThreadLayout &layout, const ThreadPosition &pos,
                         unsigned r, unsigned d);

/// i1 that is true for the one thread holding the first copy of register r's element
/// (false for replicas); null when the layout never replicates.
Value emitIsOwner(OpBuilder &b, Location loc, const ThreadLayout &layout, const ThreadPosition &pos,
                  unsigned r);

} // namespace mlir::tile

#endif
