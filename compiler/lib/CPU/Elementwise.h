//===- Elementwise.h - arith and math ops on chunks for the CPU executor --===//
// Private to compiler/lib/CPU. An arith/math op of the kernel converts to the same op on
// a chunk (vector<w x T>) or a scalar, except where the host would not behave like the
// GPU: integer division by zero or INT_MIN / -1 (x86 traps), and float-to-int
// conversion out of range or of NaN (LLVM's poison, the GPU's saturation).
#ifndef TILE_CPU_ELEMENTWISE_H
#define TILE_CPU_ELEMENTWISE_H

#include "LoweringState.h"

namespace mlir::tile::cpu {

/// `op` applied to `operands` (chunks or scalars, already lowered), giving `resultType`.
/// Reports ops outside arith and math as unsupported.
Value lowerElementwise(LoweringState &state, Operation *op, ArrayRef<Value> operands, Type resultType);

} // namespace mlir::tile::cpu

#endif
