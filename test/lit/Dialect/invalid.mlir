// Verifier errors of the tile ops.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @range_not_power_of_two() {
  // expected-error @+1 {{range size must be a power of two, got 100}}
  %r = tile.make_range {start = 0 : i32, end = 100 : i32} : tensor<100xi32>
  return
}

// -----

func.func @range_wrong_length() {
  // expected-error @+1 {{result has 64 elements, range has 128}}
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<64xi32>
  return
}

// -----

func.func @load_type_mismatch(%p: tensor<16x!tile.ptr<f32>>) {
  // expected-error @+1 {{value element type 'f16' differs from pointee type 'f32'}}
  %v = tile.load %p : tensor<16x!tile.ptr<f32>> -> tensor<16xf16>
  return
}

// -----

func.func @mask_shape(%p: tensor<16x!tile.ptr<f32>>, %m: tensor<32xi1>) {
  // expected-error @+1 {{mask shape must match the pointer shape}}
  %v = tile.load %p, %m : tensor<16x!tile.ptr<f32>>, tensor<32xi1> -> tensor<16xf32>
  return
}

// -----

func.func @store_shape(%p: tensor<16x!tile.ptr<f32>>, %v: tensor<8xf32>) {
  // expected-error @+1 {{value shape must match the pointer shape}}
  tile.store %p, %v : tensor<16x!tile.ptr<f32>>, tensor<8xf32>
  return
}

// -----

func.func @reduce_axis(%x: tensor<16xf32>) {
  // expected-error @+1 {{axis 1 out of range}}
  %s = tile.reduce sum %x {axis = 1 : i32} : tensor<16xf32> -> f32
  return
}

// -----

func.func @argmax_type(%x: tensor<16xf32>) {
  // expected-error @+1 {{result element type must be 'i32'}}
  %s = tile.reduce argmax %x {axis = 0 : i32} : tensor<16xf32> -> f32
  return
}

// -----

func.func @broadcast_bad(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{dimension 1 of size 2 cannot broadcast to 8}}
  %b = tile.broadcast %x : tensor<4x2xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @expand_bad(%x: tensor<4xf32>) {
  // expected-error @+1 {{axis 3 out of range}}
  %e = tile.expand_dims %x {axis = 3 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @other_without_mask(%p: !tile.ptr<f32>, %o: f32) {
  // expected-error @+1 {{'other' needs a mask}}
  %v = "tile.load"(%p, %o) {operandSegmentSizes = array<i32: 1, 0, 1>} : (!tile.ptr<f32>, f32) -> f32
  return
}

// -----

// expected-error @+1 {{threadsPerWarp must multiply to 32, got 16}}
func.func @bad_layout(%x: tensor<64xf32, #tile.blocked<sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [4], order = [0]>>) {
  return
}
