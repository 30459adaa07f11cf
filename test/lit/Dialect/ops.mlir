// Every tile op prints and parses back to the same IR.
// RUN: tile-opt %s | tile-opt | FileCheck %s

// Layouts print as aliases.
// CHECK: #blocked = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK: #blocked1 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK: #slice = #tile.slice<dim = 1, parent = #blocked1>

// CHECK-LABEL: func.func @all_ops
func.func @all_ops(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  // CHECK: tile.program_id 0 : i32
  %pid = tile.program_id 0 : i32
  // CHECK: tile.num_programs 1 : i32
  %np = tile.num_programs 1 : i32
  // CHECK: tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  // CHECK: tile.splat %{{.*}} : tensor<128x!tile.ptr<f32>>
  %ps = tile.splat %p : tensor<128x!tile.ptr<f32>>
  // CHECK: tile.addptr %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %ptrs = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %ns = tile.splat %n : tensor<128xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  // CHECK: tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<f32>>, tensor<128xi1>, tensor<128xf32> -> tensor<128xf32>
  %v = tile.load %ptrs, %m, %zero : tensor<128x!tile.ptr<f32>>, tensor<128xi1>, tensor<128xf32> -> tensor<128xf32>
  // CHECK: tile.reduce{{ +}}max %{{.*}} {axis = 0 : i32} : tensor<128xf32> -> f32
  %mx = tile.reduce max %v {axis = 0 : i32} : tensor<128xf32> -> f32
  // CHECK: tile.reduce{{ +}}argmax %{{.*}} {axis = 0 : i32} : tensor<128xf32> -> i32
  %am = tile.reduce argmax %v {axis = 0 : i32} : tensor<128xf32> -> i32
  // CHECK: tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  %e = tile.expand_dims %v {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  // CHECK: tile.broadcast %{{.*}} : tensor<128x1xf32> -> tensor<128x64xf32>
  %b = tile.broadcast %e : tensor<128x1xf32> -> tensor<128x64xf32>
  // CHECK: tile.reduce{{ +}}sum %{{.*}} {axis = 1 : i32} : tensor<128x64xf32> -> tensor<128xf32>
  %s = tile.reduce sum %b {axis = 1 : i32} : tensor<128x64xf32> -> tensor<128xf32>
  // CHECK: tile.atomic_add %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
  %old = tile.atomic_add %ptrs, %s, %m : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
  // CHECK: tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
  tile.store %ptrs, %old, %m : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
  return
}

// CHECK-LABEL: func.func @layouts
func.func @layouts(%x: tensor<512xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>) {
  // CHECK: tile.convert_layout %{{.*}} : tensor<512xf32, #blocked> -> tensor<512xf32, #slice>
  %c = tile.convert_layout %x : tensor<512xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>> -> tensor<512xf32, #tile.slice<dim = 1, parent = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>>
  return
}

// CHECK-LABEL: func.func @matrix_ops
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xf16> * tensor<32x8xf16> -> tensor<16x8xf32>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} {input_precision = #tile.input_precision<TF32>} : tensor<8x8xf32> * tensor<8x8xf32> -> tensor<8x8xf32>
// CHECK: tile.trans %{{.*}} {order = array<i32: 2, 0, 1>} : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
// CHECK: tile.reshape %{{.*}} : tensor<2x4x8xf32> -> tensor<64xf32>
func.func @matrix_ops(%a: tensor<16x32xf16>, %b: tensor<32x8xf16>, %c: tensor<16x8xf32>, %x: tensor<8x8xf32>, %y: tensor<2x4x8xf32>) {
  %d = tile.dot %a, %b, %c : tensor<16x32xf16> * tensor<32x8xf16> -> tensor<16x8xf32>
  %e = tile.dot %x, %x, %x {input_precision = #tile.input_precision<TF32>} : tensor<8x8xf32> * tensor<8x8xf32> -> tensor<8x8xf32>
  %t = tile.trans %y {order = array<i32: 2, 0, 1>} : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
  %r = tile.reshape %y : tensor<2x4x8xf32> -> tensor<64xf32>
  return
}
