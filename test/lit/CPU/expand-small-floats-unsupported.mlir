// RUN: not tile-opt %s --tile-cpu-expand-small-floats 2>&1 | FileCheck %s

// An op computing on bf16 that the pass does not expand is an error at the op, not a
// kernel that reaches LLVM and calls a soft-float helper the CPU executor lacks.
// CHECK: expand-small-floats-unsupported.mlir:[[@LINE+3]]:{{[0-9]+}}: error: tile-cpu-expand-small-floats: no integer expansion for this f16/bf16 operation
// CHECK-NOT: error
func.func @exp_bf16(%h: vector<4xbf16>) -> vector<4xbf16> {
  %e = math.exp %h : vector<4xbf16>
  return %e : vector<4xbf16>
}
