// RUN: tile-opt %s -split-input-file --tile-lower-to-cpu --tile-cpu-expand-small-floats | FileCheck %s

// After tile-cpu-expand-small-floats no f16/bf16 type is left: what only moves them (memory,
// gathers, selects, loop-carried values, constants, kernel arguments) moves their 16 bits as
// i16. A bfloat left in the IR reaches LLVM, whose InstCombine turns the integer code that
// widens it (`bits & 0x7fff`) into llvm.fabs on bfloat, which x86 without AVX512-BF16
// computes in f32 and rounds back through __truncsfbf2, a helper the CPU executor's JIT
// does not provide.

// A transposed bf16 tile (a gather from its stack buffer), compared, selected against a
// non-splat constant (a read-only global: 1.0 is 0x3F80 = 16256, -0.0 is 0x8000), its
// absolute value taken (the sign bit cleared) and widened.
// CHECK: memref.global "private" constant @[[CST:.*]] : memref<2xi16> = dense<[16256, -32768]>
// CHECK-LABEL: func.func @trans_bf16
// CHECK-SAME: %{{[^:]*}}: i64, %{{[^:]*}}: i64, %{{[^:]*}}: i16,
// CHECK-NOT: bf16
// CHECK: %[[SRC:.*]] = memref.alloca() {alignment = 64 : i64} : memref<2x16xi16>
// CHECK: %[[FLAT:.*]] = memref.reinterpret_cast %[[SRC]] {{.*}} to memref<32xi16>
// CHECK: vector.gather %[[FLAT]][%{{.*}}] [%{{.*}}], %{{.*}}, %{{.*}} : memref<32xi16>, vector<2xi32>, vector<2xi1>, vector<2xi16> into vector<2xi16>
// CHECK: memref.get_global @[[CST]] : memref<2xi16>
// CHECK: %[[SEL:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<2xi1>, vector<2xi16>
// CHECK: arith.andi %[[SEL]], %{{.*}} : vector<2xi16>
// CHECK-NOT: bf16
func.func @trans_bf16(%x: !tile.ptr<bf16>, %y: !tile.ptr<f32>, %s: bf16) attributes {tile.kernel} {
  %r2 = tile.make_range {start = 0 : i32, end = 2 : i32} : tensor<2xi32>
  %r16 = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %a = tile.expand_dims %r2 {axis = 1 : i32} : tensor<2xi32> -> tensor<2x1xi32>
  %c16 = arith.constant dense<16> : tensor<2x1xi32>
  %am = arith.muli %a, %c16 : tensor<2x1xi32>
  %b = tile.expand_dims %r16 {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %amb = tile.broadcast %am : tensor<2x1xi32> -> tensor<2x16xi32>
  %bb = tile.broadcast %b : tensor<1x16xi32> -> tensor<2x16xi32>
  %offs = arith.addi %amb, %bb : tensor<2x16xi32>
  %xs = tile.splat %x : tensor<2x16x!tile.ptr<bf16>>
  %p = tile.addptr %xs, %offs : tensor<2x16x!tile.ptr<bf16>>, tensor<2x16xi32>
  %v = tile.load %p : tensor<2x16x!tile.ptr<bf16>> -> tensor<2x16xbf16>
  %t = tile.trans %v {order = array<i32: 1, 0>} : tensor<2x16xbf16> -> tensor<16x2xbf16>
  %k = arith.constant dense<[1.0, -0.0]> : tensor<2xbf16>
  %k2 = tile.expand_dims %k {axis = 0 : i32} : tensor<2xbf16> -> tensor<1x2xbf16>
  %kb = tile.broadcast %k2 : tensor<1x2xbf16> -> tensor<16x2xbf16>
  %ss = tile.splat %s : tensor<16x2xbf16>
  %pos = arith.cmpf ogt, %t, %ss : tensor<16x2xbf16>
  %sel = arith.select %pos, %t, %kb : tensor<16x2xi1>, tensor<16x2xbf16>
  %abs = math.absf %sel : tensor<16x2xbf16>
  %w = arith.extf %abs : tensor<16x2xbf16> to tensor<16x2xf32>
  %yo = tile.trans %offs {order = array<i32: 1, 0>} : tensor<2x16xi32> -> tensor<16x2xi32>
  %ys = tile.splat %y : tensor<16x2x!tile.ptr<f32>>
  %q = tile.addptr %ys, %yo : tensor<16x2x!tile.ptr<f32>>, tensor<16x2xi32>
  tile.store %q, %w : tensor<16x2x!tile.ptr<f32>>, tensor<16x2xf32>
  return
}

// -----

// A bf16 scalar carried by a loop, and masked loads and stores of bf16 (LLVM intrinsics).
// CHECK-LABEL: func.func @carried_bf16
// CHECK-SAME: %{{[^:]*}}: i64, %{{[^:]*}}: i64, %[[S:[^:]*]]: i16,
// CHECK-NOT: bf16
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[S]]) -> (i16)
// CHECK: llvm.intr.masked.load {{.*}} -> vector<16xi16>
// CHECK: llvm.intr.masked.store {{.*}} : vector<16xi16>, vector<16xi1> into !llvm.ptr
// CHECK-NOT: bf16
func.func @carried_bf16(%x: !tile.ptr<bf16>, %y: !tile.ptr<bf16>, %s: bf16, %n: i32) attributes {tile.kernel} {
  %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %ns = tile.splat %n : tensor<16xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<16xi32>
  %xs = tile.splat %x : tensor<16x!tile.ptr<bf16>>
  %p = tile.addptr %xs, %r : tensor<16x!tile.ptr<bf16>>, tensor<16xi32>
  %other = arith.constant dense<1.0> : tensor<16xbf16>
  %v = tile.load %p, %m, %other : tensor<16x!tile.ptr<bf16>>, tensor<16xi1>, tensor<16xbf16> -> tensor<16xbf16>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %s) -> (bf16) : i32 {
    %b = arith.addf %a, %s : bf16
    scf.yield %b : bf16
  }
  %as = tile.splat %acc : tensor<16xbf16>
  %w = arith.mulf %v, %as : tensor<16xbf16>
  %ys = tile.splat %y : tensor<16x!tile.ptr<bf16>>
  %q = tile.addptr %ys, %r : tensor<16x!tile.ptr<bf16>>, tensor<16xi32>
  tile.store %q, %w, %m : tensor<16x!tile.ptr<bf16>>, tensor<16xbf16>, tensor<16xi1>
  return
}
