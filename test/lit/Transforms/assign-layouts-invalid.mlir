// tile-assign-layouts refuses what it cannot lay out, with a diagnostic instead of a crash.
// RUN: tile-opt %s -split-input-file --tile-assign-layouts -verify-diagnostics

// expected-error @+1 {{kernel arguments must be scalars or pointers, argument 0 is 'tensor<4x8xf32>'}}
func.func @tensor_argument(%x: tensor<4x8xf32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.reduce sum %x {axis = 0 : i32} : tensor<4x8xf32> -> tensor<8xf32>
  return
}

// -----

// Found by fuzz_ir_pipeline (test/fuzz/findings/kernel-with-result.mlir): a returned value used
// to leave IR that does not verify.
// expected-error @+1 {{a kernel returns nothing: results go through pointers (tile.store)}}
func.func @kernel_with_result() -> i32 attributes {tile.kernel} {
  %c = arith.constant 1 : i32
  return %c : i32
}
