// RUN: tile-opt %s -split-input-file --tile-assign-layouts | FileCheck %s

// 16-byte accesses are possible (aligned pointers, contiguous offsets): 4 f32 per thread.
// CHECK: #[[B:.*]] = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: func.func @vector
// CHECK: tile.make_range {{.*}} : tensor<1024xi32, #[[B]]>
// CHECK: tile.load {{.*}} -> tensor<1024xf32, #[[B]]>
func.func @vector(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %p : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
  tile.store %p, %v : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}

// -----

// Unaligned base pointer: one element per thread.
// CHECK: #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
// CHECK-LABEL: func.func @unaligned
func.func @unaligned(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %p : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
  tile.store %p, %v : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}

// -----

// 2-D: threads along the contiguous dimension first. Ranges feeding expand_dims are
// converted into the slice layout (remove-layout-conversions rebuilds them there); the
// row reduction yields a slice that expand_dims turns back into the parent layout.
// CHECK: #[[B2:.*]] = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK: #[[S1:.*]] = #tile.slice<dim = 1, parent = #[[B2]]>
// CHECK: #[[S0:.*]] = #tile.slice<dim = 0, parent = #[[B2]]>
// CHECK-LABEL: func.func @rows
// CHECK: tile.convert_layout %{{.*}} : tensor<16xi32, #{{.*}}> -> tensor<16xi32, #[[S1]]>
// CHECK: tile.convert_layout %{{.*}} : tensor<128xi32, #{{.*}}> -> tensor<128xi32, #[[S0]]>
// CHECK: tile.reduce{{ +}}max {{.*}} : tensor<16x128xf32, #[[B2]]> -> tensor<16xf32, #[[S1]]>
// CHECK: tile.expand_dims {{.*}} : tensor<16xf32, #[[S1]]> -> tensor<16x1xf32, #[[B2]]>
func.func @rows(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %rows = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %cols = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %c128 = arith.constant dense<128> : tensor<16x1xi32>
  %rs = arith.muli %r2, %c128 : tensor<16x1xi32>
  %rb = tile.broadcast %rs : tensor<16x1xi32> -> tensor<16x128xi32>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<16x128xi32>
  %offs = arith.addi %rb, %cb : tensor<16x128xi32>
  %xs = tile.splat %x : tensor<16x128x!tile.ptr<f32>>
  %p = tile.addptr %xs, %offs : tensor<16x128x!tile.ptr<f32>>, tensor<16x128xi32>
  %v = tile.load %p : tensor<16x128x!tile.ptr<f32>> -> tensor<16x128xf32>
  %m = tile.reduce max %v {axis = 1 : i32} : tensor<16x128xf32> -> tensor<16xf32>
  %m2 = tile.expand_dims %m {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  %mb = tile.broadcast %m2 : tensor<16x1xf32> -> tensor<16x128xf32>
  %d = arith.subf %v, %mb : tensor<16x128xf32>
  tile.store %p, %d : tensor<16x128x!tile.ptr<f32>>, tensor<16x128xf32>
  return
}

// -----

// A reduction result meeting a blocked tensor in an elementwise op is converted once.
// CHECK-LABEL: func.func @slice_meets_blocked
// CHECK: tile.reduce
// CHECK: tile.convert_layout
// CHECK: arith.addf
func.func @slice_meets_blocked(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %cols = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %cb = tile.broadcast %c2 : tensor<1x32xi32> -> tensor<32x32xi32>
  %xs = tile.splat %x : tensor<32x32x!tile.ptr<f32>>
  %p = tile.addptr %xs, %cb : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  %v = tile.load %p : tensor<32x32x!tile.ptr<f32>> -> tensor<32x32xf32>
  %s = tile.reduce sum %v {axis = 1 : i32} : tensor<32x32xf32> -> tensor<32xf32>
  %ys = tile.splat %y : tensor<32x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %cols : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
  %w = tile.load %yp : tensor<32x!tile.ptr<f32>> -> tensor<32xf32>
  %t = arith.addf %s, %w : tensor<32xf32>
  tile.store %yp, %t : tensor<32x!tile.ptr<f32>>, tensor<32xf32>
  return
}

// -----

// dot: the result keeps the accumulator's blocked layout; a gets its rows with the whole
// K (sizePerThread [1, 16]) and b its columns with the whole K ([16, 1]), same lanes and
// warps, so the FMA lowering needs no data movement. trans permutes the layout; reshape
// takes its rank's default.
// CHECK-DAG: #[[C:.*]] = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[A:.*]] = #tile.blocked<sizePerThread = [1, 16], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[B:.*]] = #tile.blocked<sizePerThread = [16, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[T:.*]] = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]>
// CHECK-LABEL: func.func @dot_trans_reshape
// CHECK: tile.trans %{{.*}} : tensor<16x32xf16, #[[C]]> -> tensor<32x16xf16, #[[T]]>
// CHECK-DAG: tile.convert_layout %{{.*}} : tensor<32x16xf16, #[[T]]> -> tensor<32x16xf16, #[[A]]>
// CHECK-DAG: tile.convert_layout %{{.*}} : tensor<16x32xf16, #[[C]]> -> tensor<16x32xf16, #[[B]]>
// CHECK: tile.dot %{{.*}} : tensor<32x16xf16, #[[A]]> * tensor<16x32xf16, #[[B]]> -> tensor<32x32xf32, #[[C]]>
// CHECK: tile.reshape %{{.*}} : tensor<32x32xf32, #[[C]]> -> tensor<1024xf32, #
func.func @dot_trans_reshape(%a: !tile.ptr<f16>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pa = tile.splat %a : tensor<16x32x!tile.ptr<f16>>
  %va = tile.load %pa : tensor<16x32x!tile.ptr<f16>> -> tensor<16x32xf16>
  %vt = tile.trans %va {order = array<i32: 1, 0>} : tensor<16x32xf16> -> tensor<32x16xf16>
  %acc = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %vt, %va, %acc : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
  %dr = tile.reshape %d : tensor<32x32xf32> -> tensor<1024xf32>
  %pc = tile.splat %c : tensor<1024x!tile.ptr<f32>>
  tile.store %pc, %dr : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}

// -----

// A reduction of a reduction: the sliced operand is converted to the default blocked
// layout of its rank first (a slice of a slice is not a layout we have).
// CHECK-LABEL: func.func @reduce_of_reduce
// CHECK: %[[R1:.*]] = tile.reduce sum %{{.*}} {axis = 0 : i32} : tensor<4x8x16xf32, #{{.*}}> -> tensor<8x16xf32, #[[S:slice[0-9]*]]>
// CHECK: %[[C:.*]] = tile.convert_layout %[[R1]] : tensor<8x16xf32, #[[S]]> -> tensor<8x16xf32, #[[P2:blocked[0-9]*]]>
// CHECK: tile.reduce sum %[[C]] {axis = 1 : i32} : tensor<8x16xf32, #[[P2]]> -> tensor<8xf32, #
func.func @reduce_of_reduce(%a: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %p = tile.splat %a : tensor<4x8x16x!tile.ptr<f32>>
  %x = tile.load %p : tensor<4x8x16x!tile.ptr<f32>> -> tensor<4x8x16xf32>
  %r1 = tile.reduce sum %x {axis = 0 : i32} : tensor<4x8x16xf32> -> tensor<8x16xf32>
  %r2 = tile.reduce sum %r1 {axis = 1 : i32} : tensor<8x16xf32> -> tensor<8xf32>
  %q = tile.splat %a : tensor<8x!tile.ptr<f32>>
  tile.store %q, %r2 : tensor<8x!tile.ptr<f32>>, tensor<8xf32>
  return
}
