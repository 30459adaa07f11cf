//===- LayoutRewrite.h - helpers of the layout passes ---------------------===//
// Shared by assign-layouts, coalesce, accelerate-matmul and remove-layout-conversions:
// retyping a value into a layout, inserting conversions, and recomputing cheap values
// (index arithmetic, address tensors) in another layout instead of moving them.
#ifndef TILE_TRANSFORMS_LAYOUTREWRITE_H
#define TILE_TRANSFORMS_LAYOUTREWRITE_H

#include "tile/Analysis/Layouts.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::tile {

/// `t` (a ranked tensor) with its encoding replaced by `layout`.
RankedTensorType withLayout(Type t, Attribute layout);

/// A ranked tensor without an encoding (not yet laid out).
bool isUnlaidTensor(Type t);

/// `v` in `layout`: itself if it already is, else a new tile.convert_layout at `b`.
Value convertTo(OpBuilder &b, Value v, Attribute layout);

/// The kernel's warps: its tile.num_warps attribute, else 4.
unsigned kernelWarps(func::FuncOp func);

/// Per tensor rank, the widest vector (in elements, up to 16) any global access of that
/// rank allows by its addresses' contiguity and alignment: what the rank's default blocked
/// layout is sized for.
DenseMap<unsigned, unsigned> accessVectorWidths(func::FuncOp func);

/// What rebuildableIn may recompute besides index arithmetic.
enum class Rebuild {
  Arithmetic,
  /// Also global loads of fewer elements than the kernel has threads (Triton's rule: every
  /// element is loaded by several threads already, so loading it in the wanted layout costs
  /// L1 hits, not a round trip through shared memory and a barrier): attention's row
  /// log-sum-exp, broadcast over an accumulator's columns.
  ReplicatedLoads,
};

/// Whether `v` can be recomputed in `layout` from scalars alone instead of converted: a
/// short computation of ranges, splats, constants, arith ops, addptr, broadcast and
/// expand_dims (not into mma operand fragments), e.g. `base + rows[:, None] * stride + cols`;
/// with Rebuild::ReplicatedLoads, also of such loads.
bool rebuildableIn(Value v, Attribute layout, Rebuild what = Rebuild::Arithmetic);

/// A copy of rebuildable `v`'s computation producing `type` (same shape, other layout). A
/// load is copied next to the original (what it reads is what the original read), the rest
/// at `b`'s insertion point.
Value rematerialize(OpBuilder &b, Value v, RankedTensorType type);

/// Erases each of `ops` (null entries allowed, an op may repeat) that nothing uses and that
/// would be trivially dead (no memory effects but reads), then whatever fed only erased ops: what a rewrite left behind.
/// Pass every op a rewrite left together: one erased first may have fed another.
void eraseIfDead(ArrayRef<Operation *> ops);
inline void eraseIfDead(Operation *op) { eraseIfDead(ArrayRef<Operation *>(op)); }

} // namespace mlir::tile

#endif
