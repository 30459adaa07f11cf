// RUN: tile-opt %s -split-input-file --tile-lower-to-cpu | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-lower-to-cpu=check=true | FileCheck %s --check-prefix=CHECKED

// tile.dot, tile.trans and tile.reshape on the CPU executor (compiler/lib/CPU/Dot.cpp,
// Permute.cpp). The unit tests (test/unit/cpu_dot_tests.cpp) check the numbers; these
// check the shape of the code.

// f16 operands: widened to f32 once, fused with their loads, into row-major stack
// buffers; then per row and chunk of 16 columns a k loop of broadcast a[m, k] times
// b[k, n0:n0+16], one vector fma each, carried in registers from the accumulator.
// CHECK-LABEL: func.func @dot_f16
// CHECK-NOT: tile.dot
// CHECK-DAG: %[[A:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8x16xf32>
// CHECK-DAG: %[[B:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x32xf32>
// CHECK-DAG: %[[C:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8x32xf32>
// CHECK: llvm.load {{.*}} -> vector<16xf16>
// CHECK: arith.extf {{.*}} : vector<16xf16> to vector<16xf32>
// CHECK: vector.store {{.*}}, %[[A]]
// CHECK: llvm.load {{.*}} -> vector<16xf16>
// CHECK: arith.extf {{.*}} : vector<16xf16> to vector<16xf32>
// CHECK: vector.store {{.*}}, %[[B]]
// CHECK: scf.for %[[M:.*]] = %{{.*}} to %c8
// CHECK: scf.for %[[N:.*]] = %{{.*}} to %c32 step %c16
// CHECK: %[[R:.*]] = scf.for %[[K:.*]] = %{{.*}} to %c16{{.*}} step %c1{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<16xf32>)
// CHECK-NEXT: %[[X:.*]] = memref.load %[[A]][%[[M]], %[[K]]] : memref<8x16xf32>
// CHECK-NEXT: %[[XS:.*]] = vector.broadcast %[[X]] : f32 to vector<16xf32>
// CHECK-NEXT: %[[Y:.*]] = vector.load %[[B]][%[[K]], %[[N]]] : memref<16x32xf32>, vector<16xf32>
// CHECK-NEXT: %[[F:.*]] = math.fma %[[XS]], %[[Y]], %[[ACC]] : vector<16xf32>
// CHECK-NEXT: scf.yield %[[F]] : vector<16xf32>
// CHECK: vector.store %[[R]], %[[C]][%[[M]], %[[N]]]
// CHECK-NOT: tile.dot
// In checking mode the fused loads are checked; the dot itself touches no global memory.
// CHECKED-LABEL: func.func @dot_f16
// CHECKED: call @tile_cpu_check
// CHECKED: math.fma
func.func @dot_f16(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r8 = tile.make_range {start = 0 : i32, end = 8 : i32} : tensor<8xi32>
  %r16 = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %r32 = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %am = tile.expand_dims %r8 {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %ak = tile.expand_dims %r16 {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %amb = tile.broadcast %am : tensor<8x1xi32> -> tensor<8x16xi32>
  %akb = tile.broadcast %ak : tensor<1x16xi32> -> tensor<8x16xi32>
  %c16 = arith.constant dense<16> : tensor<8x16xi32>
  %ar = arith.muli %amb, %c16 : tensor<8x16xi32>
  %aoffs = arith.addi %ar, %akb : tensor<8x16xi32>
  %as = tile.splat %pa : tensor<8x16x!tile.ptr<f16>>
  %ap = tile.addptr %as, %aoffs : tensor<8x16x!tile.ptr<f16>>, tensor<8x16xi32>
  %a = tile.load %ap : tensor<8x16x!tile.ptr<f16>> -> tensor<8x16xf16>
  %bk = tile.expand_dims %r16 {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %bn = tile.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %bkb = tile.broadcast %bk : tensor<16x1xi32> -> tensor<16x32xi32>
  %bnb = tile.broadcast %bn : tensor<1x32xi32> -> tensor<16x32xi32>
  %c32 = arith.constant dense<32> : tensor<16x32xi32>
  %br = arith.muli %bkb, %c32 : tensor<16x32xi32>
  %boffs = arith.addi %br, %bnb : tensor<16x32xi32>
  %bs = tile.splat %pb : tensor<16x32x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %boffs : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
  %b = tile.load %bp : tensor<16x32x!tile.ptr<f16>> -> tensor<16x32xf16>
  %zero = arith.constant dense<0.0> : tensor<8x32xf32>
  %c = tile.dot %a, %b, %zero : tensor<8x16xf16> * tensor<16x32xf16> -> tensor<8x32xf32>
  %cm = tile.expand_dims %r8 {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %cmb = tile.broadcast %cm : tensor<8x1xi32> -> tensor<8x32xi32>
  %cnb = tile.broadcast %bn : tensor<1x32xi32> -> tensor<8x32xi32>
  %c32b = arith.constant dense<32> : tensor<8x32xi32>
  %cr = arith.muli %cmb, %c32b : tensor<8x32xi32>
  %coffs = arith.addi %cr, %cnb : tensor<8x32xi32>
  %cs = tile.splat %pc : tensor<8x32x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %coffs : tensor<8x32x!tile.ptr<f32>>, tensor<8x32xi32>
  tile.store %cp, %c : tensor<8x32x!tile.ptr<f32>>, tensor<8x32xf32>
  return
}

// -----

// TF32: each factor rounded once, as cvt.rna.tf32.f32 (add 0x1000, clear the low 13
// bits, NaN and inf kept), before the same fma loop; the accumulator starts at acc.
// CHECK-LABEL: func.func @dot_tf32
// CHECK-NOT: tile.dot
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK: %[[MAG:.*]] = arith.andi %[[BITS]], %{{.*}} : vector<8xi32>
// CHECK: %[[FIN:.*]] = arith.cmpi ult, %[[MAG]], %{{.*}} : vector<8xi32>
// CHECK-DAG: %[[CLEAR:.*]] = arith.constant dense<-8192> : vector<8xi32>
// CHECK-DAG: %[[HALF:.*]] = arith.constant dense<4096> : vector<8xi32>
// CHECK: %[[UP:.*]] = arith.addi %[[BITS]], %[[HALF]] : vector<8xi32>
// CHECK: %[[RND:.*]] = arith.andi %[[UP]], %[[CLEAR]] : vector<8xi32>
// CHECK: arith.select %[[FIN]], %[[RND]], %[[BITS]] : vector<8xi1>, vector<8xi32>
// CHECK: arith.bitcast %{{.*}} : vector<16xf32> to vector<16xi32>
// CHECK: arith.constant dense<1.000000e+00> : vector<16xf32>
// CHECK: scf.for {{.*}} iter_args
// CHECK: math.fma {{.*}} : vector<16xf32>
func.func @dot_tf32(%x: f32, %y: f32, %p: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %a = tile.splat %x : tensor<4x8xf32>
  %b = tile.splat %y : tensor<8x16xf32>
  %acc = arith.constant dense<1.0> : tensor<4x16xf32>
  %c = tile.dot %a, %b, %acc {input_precision = #tile.input_precision<TF32>} : tensor<4x8xf32> * tensor<8x16xf32> -> tensor<4x16xf32>
  %ps = tile.splat %p : tensor<4x16x!tile.ptr<f32>>
  tile.store %ps, %c : tensor<4x16x!tile.ptr<f32>>, tensor<4x16xf32>
  return
}

// -----

// f32 IEEE operands that already have a buffer (a constant in a global) are read in
// place: no conversion, no copy.
// CHECK-LABEL: func.func @dot_f32_constants
// CHECK-NOT: arith.bitcast
// CHECK: %[[G:.*]] = memref.get_global @__tile_cst_0 : memref<2x2xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<2xf32>)
// CHECK: memref.load %[[G]]
// CHECK: vector.load %[[G]]
// CHECK: math.fma {{.*}} : vector<2xf32>
// CHECK-NOT: tile.dot
func.func @dot_f32_constants(%p: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %acc = arith.constant dense<0.5> : tensor<2x2xf32>
  %c = tile.dot %a, %a, %acc : tensor<2x2xf32> * tensor<2x2xf32> -> tensor<2x2xf32>
  %ps = tile.splat %p : tensor<2x2x!tile.ptr<f32>>
  tile.store %ps, %c : tensor<2x2x!tile.ptr<f32>>, tensor<2x2xf32>
  return
}

// -----

// 1x1x1: chunks of one element.
// CHECK-LABEL: func.func @dot_1x1x1
// CHECK: scf.for {{.*}} -> (vector<1xf32>)
// CHECK: math.fma {{.*}} : vector<1xf32>
// CHECK-NOT: tile.dot
func.func @dot_1x1x1(%x: f32, %y: f32, %p: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %a = tile.splat %x : tensor<1x1xf32>
  %b = tile.splat %y : tensor<1x1xf32>
  %acc = arith.constant dense<0.0> : tensor<1x1xf32>
  %c = tile.dot %a, %b, %acc : tensor<1x1xf32> * tensor<1x1xf32> -> tensor<1x1xf32>
  %ps = tile.splat %p : tensor<1x1x!tile.ptr<f32>>
  tile.store %ps, %c : tensor<1x1x!tile.ptr<f32>>, tensor<1x1xf32>
  return
}

// -----

// A 2-D transpose: the source is materialised (its exp fused), then each result chunk
// gathers its 16 elements at the source's row stride through a 1-D view.
// CHECK-LABEL: func.func @trans_2d
// CHECK-DAG: %[[T:.*]] = memref.alloca() {alignment = 64 : i64} : memref<32x16xf32>
// CHECK-DAG: %[[S:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16x32xf32>
// CHECK: math.exp {{.*}} : vector<16xf32>
// CHECK: vector.store {{.*}}, %[[S]]
// CHECK: %[[FLAT:.*]] = memref.reinterpret_cast %[[S]] to offset: [0], sizes: [512], strides: [1]
// CHECK: arith.constant dense<[0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 480]> : vector<16xi32>
// CHECK: vector.gather %[[FLAT]]
// CHECK: vector.store {{.*}}, %[[T]]
// CHECK-NOT: tile.trans
func.func @trans_2d(%x: f32, %p: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %s = tile.splat %x : tensor<16x32xf32>
  %e = math.exp %s : tensor<16x32xf32>
  %t = tile.trans %e {order = array<i32: 1, 0>} : tensor<16x32xf32> -> tensor<32x16xf32>
  %ps = tile.splat %p : tensor<32x16x!tile.ptr<f32>>
  tile.store %ps, %t : tensor<32x16x!tile.ptr<f32>>, tensor<32x16xf32>
  return
}

// -----

// The last dimension stays last: no gather, no source buffer (exp fused into the copy).
// CHECK-LABEL: func.func @trans_3d_keep_last
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<4x2x8xf16>
// CHECK-NOT: memref.alloca
// CHECK-NOT: vector.gather
// CHECK: math.exp {{.*}} : vector<8xf16>
// CHECK-NOT: vector.gather
// CHECK-NOT: tile.trans
func.func @trans_3d_keep_last(%x: f16, %p: !tile.ptr<f16>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %s = tile.splat %x : tensor<2x4x8xf16>
  %e = math.exp %s : tensor<2x4x8xf16>
  %t = tile.trans %e {order = array<i32: 1, 0, 2>} : tensor<2x4x8xf16> -> tensor<4x2x8xf16>
  %ps = tile.splat %p : tensor<4x2x8x!tile.ptr<f16>>
  tile.store %ps, %t : tensor<4x2x8x!tile.ptr<f16>>, tensor<4x2x8xf16>
  return
}

// -----

// Bools live as bytes: a reshape of a fresh buffer is a view of it; the permutation
// gathers bytes and turns them back into i1.
// CHECK-LABEL: func.func @trans_3d_i1
// CHECK: %[[SRC:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8xi8>
// CHECK: arith.extui {{.*}} : vector<8xi1> to vector<8xi8>
// CHECK: vector.store {{.*}}, %[[SRC]]
// CHECK-NOT: memref.alloca
// CHECK: memref.reinterpret_cast %[[SRC]] to offset: [0], sizes: [2, 2, 2], strides: [4, 2, 1]
// CHECK: %[[G:.*]] = vector.gather {{.*}} : memref<8xi8>, vector<2xi32>, vector<2xi1>, vector<2xi8> into vector<2xi8>
// CHECK: arith.cmpi ne, %[[G]]
// CHECK-NOT: tile.reshape
// CHECK-NOT: tile.trans
func.func @trans_3d_i1(%x: i32, %p: !tile.ptr<i1>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 8 : i32} : tensor<8xi32>
  %s = tile.splat %x : tensor<8xi32>
  %m = arith.cmpi slt, %r, %s : tensor<8xi32>
  %m3 = tile.reshape %m : tensor<8xi1> -> tensor<2x2x2xi1>
  %t = tile.trans %m3 {order = array<i32: 2, 0, 1>} : tensor<2x2x2xi1> -> tensor<2x2x2xi1>
  %ps = tile.splat %p : tensor<2x2x2x!tile.ptr<i1>>
  tile.store %ps, %t : tensor<2x2x2x!tile.ptr<i1>>, tensor<2x2x2xi1>
  return
}

// -----

// A reshape of a loop-carried tensor copies it (its buffer is written again by the
// loop), reading through a view with the result's shape.
// CHECK-LABEL: func.func @reshape_carried
// CHECK-DAG: %[[CARRIED:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4x32xf32>
// CHECK-DAG: %[[R:.*]] = memref.alloca() {alignment = 64 : i64} : memref<128xf32>
// CHECK: math.exp
// CHECK: %[[V:.*]] = memref.reinterpret_cast %[[CARRIED]] to offset: [0], sizes: [128], strides: [1]
// CHECK: scf.for %[[I:.*]] =
// CHECK-NEXT: %[[X:.*]] = vector.load %[[V]][%[[I]]] : memref<128xf32>, vector<16xf32>
// CHECK-NEXT: vector.store %[[X]], %[[R]][%[[I]]]
// CHECK-NOT: tile.reshape
func.func @reshape_carried(%x: f32, %n: i32, %p: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %s = tile.splat %x : tensor<4x32xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %s) -> (tensor<4x32xf32>) : i32 {
    %e = math.exp %acc : tensor<4x32xf32>
    scf.yield %e : tensor<4x32xf32>
  }
  %v = tile.reshape %r : tensor<4x32xf32> -> tensor<128xf32>
  %ps = tile.splat %p : tensor<128x!tile.ptr<f32>>
  tile.store %ps, %v : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  return
}
