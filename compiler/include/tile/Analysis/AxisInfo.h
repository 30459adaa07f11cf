//===- AxisInfo.h - contiguity, divisibility and constancy of values ------===//
// Facts about the integer and pointer values of a kernel, per tensor dimension, that
// decide how wide a memory access may be (the same three facts Triton tracks):
//  - contiguity[d]:  elements come in runs of this many consecutive values along d;
//  - divisibility[d]: the first value of each run is a multiple of this (in bytes for
//                     pointers, in units for integers);
//  - constancy[d]:   elements come in runs of this many equal values along d.
// All facts are powers of two. Scalars are treated as rank-1 of size 1.
#ifndef TILE_ANALYSIS_AXISINFO_H
#define TILE_ANALYSIS_AXISINFO_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::tile {

struct AxisInfo {
  SmallVector<int64_t, 2> contiguity, divisibility, constancy;

  static AxisInfo pessimistic(unsigned rank);
  unsigned rank() const { return contiguity.size(); }
};

/// Computes AxisInfo for every value of a module in one forward walk. Loop-carried
/// values are taken pessimistically; a loop's induction variable keeps the
/// divisibility its lower bound and step share.
class AxisInfoAnalysis {
public:
  explicit AxisInfoAnalysis(Operation *root);
  const AxisInfo &get(Value v);

private:
  AxisInfo compute(Value v);
  llvm::DenseMap<Value, AxisInfo> infos;
};

/// Largest power of two dividing v (capped at 2^30; 0 counts as highly divisible).
int64_t highestPowerOf2Divisor(int64_t v);

} // namespace mlir::tile

#endif
