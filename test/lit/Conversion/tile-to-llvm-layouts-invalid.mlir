// RUN: tile-opt %s -split-input-file --convert-tile-to-llvm -verify-diagnostics
// Layouts the lowering cannot handle yet are refused with the reason, never lowered wrong.

// A lane bit that moves along the reduced axis and the other dimension at once (lane
// bit 0 -> (1, 1)): a butterfly over it would mix different rows' results.
#mixed = #tile.linear<register = [[0, 1], [0, 2]], lane = [[1, 1], [2, 0], [4, 0], [8, 0], [16, 0]], warp = []>
func.func @mixed_axis(%v: tensor<32x4xf32, #mixed>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-error @+2 {{failed to legalize operation 'tile.reduce'}}
  // expected-error @+1 {{'tile.reduce' op lowering: cannot reduce a tensor of layout #tile.linear<register = [[0, 1], [0, 2]], lane = [[1, 1], [2, 0], [4, 0], [8, 0], [16, 0]], warp = []> along axis 0: lane bit 0 moves along the reduced axis and another dimension at once}}
  %s = tile.reduce sum %v {axis = 0 : i32} : tensor<32x4xf32, #mixed> -> tensor<4xf32, #tile.slice<dim = 0, parent = #mixed>>
  return
}

// -----

// Every register is unrolled: 2^21 elements on one warp would take minutes to lower (found by
// fuzz_ir_pipeline: a 16M-register layout hung the lowering), so it is refused up front.
#one_warp = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
func.func @too_many_registers(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-error @+1 {{unsupported: a tensor of 'tensor<1024x2048x!tile.ptr<f32>, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>>' needs 65536 registers per thread, more than the 32768 the lowering unrolls: use smaller tiles or more warps}}
  %xs = tile.splat %x : tensor<1024x2048x!tile.ptr<f32>, #one_warp>
  %v = tile.load %xs : tensor<1024x2048x!tile.ptr<f32>, #one_warp> -> tensor<1024x2048xf32, #one_warp>
  tile.store %xs, %v : tensor<1024x2048x!tile.ptr<f32>, #one_warp>, tensor<1024x2048xf32, #one_warp>
  return
}

// -----

// tile.vec (tile-coalesce's) groups a thread's registers into one access: a width that does
// not divide them (or past 16 bytes) is refused (found by fuzz_ir_pipeline: 2^31 hung the
// lowering, which built a vector of that many elements; the dialect's verifier now refuses
// that one where it is parsed, Dialect/attrs-invalid.mlir).
#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @vec_too_wide(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #b>
  %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #b>, tensor<512xi32, #b>
  // expected-error @+2 {{'tile.load' op tile.vec = 16 does not fit 4 registers of 'f32' per thread (a power of two dividing them, at most 16 bytes)}}
  // expected-error @+1 {{failed to legalize operation 'tile.load'}}
  %v = tile.load %p {tile.vec = 16 : i32} : tensor<512x!tile.ptr<f32>, #b> -> tensor<512xf32, #b>
  tile.store %p, %v : tensor<512x!tile.ptr<f32>, #b>, tensor<512xf32, #b>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @store_vec_too_wide(%x: !tile.ptr<f32>, %v: tensor<512xf32, #b>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #b>
  %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #b>, tensor<512xi32, #b>
  // expected-error @+2 {{'tile.store' op tile.vec = 8 does not fit 4 registers of 'f32' per thread (a power of two dividing them, at most 16 bytes)}}
  // expected-error @+1 {{failed to legalize operation 'tile.store'}}
  tile.store %p, %v {tile.vec = 8 : i32} : tensor<512x!tile.ptr<f32>, #b>, tensor<512xf32, #b>
  return
}
