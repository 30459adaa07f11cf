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

// -----

func.func @dot_inner_dims(%a: tensor<16x32xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{inner dimensions differ: a is 16x32, b is 16x16}}
  %d = tile.dot %a, %b, %c : tensor<16x32xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_acc_shape(%a: tensor<16x32xf16>, %b: tensor<32x8xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{accumulator must be 16x8, got 16x16}}
  %d = tile.dot %a, %b, %c : tensor<16x32xf16> * tensor<32x8xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_mixed_types(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{a and b must have one element type}}
  %d = tile.dot %a, %b, %c : tensor<16x16xf16> * tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_int_inputs(%a: tensor<16x16xi32>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{inputs must be f16, bf16 or f32}}
  %d = tile.dot %a, %a, %c : tensor<16x16xi32> * tensor<16x16xi32> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_f16_acc(%a: tensor<16x16xf16>, %c: tensor<16x16xf16>) {
  // expected-error @+1 {{accumulator must be f32}}
  %d = tile.dot %a, %a, %c : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf16>
  return
}

// -----

func.func @dot_tf32_of_f16(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{tf32 input precision needs f32 inputs}}
  %d = tile.dot %a, %a, %c {input_precision = #tile.input_precision<TF32>} : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_rank3(%a: tensor<2x16x16xf32>, %c: tensor<2x16x16xf32>) {
  // expected-error @+1 {{operands must be 2-D, got ranks 3, 3, 3}}
  %d = tile.dot %a, %a, %c : tensor<2x16x16xf32> * tensor<2x16x16xf32> -> tensor<2x16x16xf32>
  return
}

// -----

func.func @trans_not_permutation(%x: tensor<16x32xf32>) {
  // expected-error @+1 {{order must be a permutation of the dimensions}}
  %t = tile.trans %x {order = array<i32: 0, 0>} : tensor<16x32xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @trans_shape(%x: tensor<16x32xf32>) {
  // expected-error @+1 {{result shape does not follow the order}}
  %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<16x32xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<16x32xf32>) {
  // expected-error @+1 {{element count changes from 512 to 256}}
  %r = tile.reshape %x : tensor<16x32xf32> -> tensor<16x16xf32>
  return
}
