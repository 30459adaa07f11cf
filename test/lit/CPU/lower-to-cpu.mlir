// RUN: tile-opt %s -split-input-file --tile-lower-to-cpu | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-lower-to-cpu=check=true | FileCheck %s --check-prefix=CHECKED

// Contiguous masked accesses fuse into one chunk loop of masked vector loads/stores; the
// program id and counts become trailing i32 arguments, pointers i64 addresses.
// CHECK-LABEL: func.func @add
// CHECK-SAME: (%{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// CHECK-NOT: memref.alloca
// CHECK: scf.for
// CHECK: llvm.intr.masked.load {{.*}} -> vector<16xf32>
// CHECK: arith.mulf {{.*}} : vector<16xf32>
// CHECK: llvm.intr.masked.store {{.*}} : vector<16xf32>, vector<16xi1> into !llvm.ptr
// CHECKED-LABEL: func.func @add
// CHECKED: call @tile_cpu_check
func.func @add(%x: !tile.ptr<f32>, %z: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pid = tile.program_id 0 : i32
  %c = arith.constant 256 : i32
  %b = arith.muli %pid, %c : i32
  %bs = tile.splat %b : tensor<256xi32>
  %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
  %offs = arith.addi %bs, %r : tensor<256xi32>
  %ns = tile.splat %n : tensor<256xi32>
  %m = arith.cmpi slt, %offs, %ns : tensor<256xi32>
  %xs = tile.splat %x : tensor<256x!tile.ptr<f32>>
  %p = tile.addptr %xs, %offs : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %v = tile.load %p, %m : tensor<256x!tile.ptr<f32>>, tensor<256xi1> -> tensor<256xf32>
  %two = arith.constant dense<2.0> : tensor<256xf32>
  %w = arith.mulf %v, %two : tensor<256xf32>
  %zs = tile.splat %z : tensor<256x!tile.ptr<f32>>
  %q = tile.addptr %zs, %offs : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %q, %w, %m : tensor<256x!tile.ptr<f32>>, tensor<256xf32>, tensor<256xi1>
  return
}

// -----

// A value used twice is materialised in a stack buffer; the row reduction keeps 16 lane
// partials and combines them as a halving tree of shuffles.
// CHECK-LABEL: func.func @sum_twice
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<64xf32>
// CHECK: vector.store
// CHECK: scf.for {{.*}} iter_args
// CHECK: vector.shuffle {{.*}} [0, 1, 2, 3, 4, 5, 6, 7]
// CHECK: vector.shuffle {{.*}} [8, 9, 10, 11, 12, 13, 14, 15]
// CHECK: arith.addf {{.*}} : vector<8xf32>
func.func @sum_twice(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %xs = tile.splat %x : tensor<64x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = tile.load %p : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
  %e = math.exp %v : tensor<64xf32>
  %s = tile.reduce sum %e {axis = 0 : i32} : tensor<64xf32> -> f32
  %ss = tile.splat %s : tensor<64xf32>
  %d = arith.divf %e, %ss : tensor<64xf32>
  tile.store %p, %d : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  return
}

// -----

// Addresses the axis analysis cannot prove contiguous (a transposed store) scatter.
// CHECK-LABEL: func.func @transpose
// CHECK: llvm.intr.masked.gather
// CHECK-NOT: llvm.intr.masked.gather
// CHECK: llvm.intr.masked.scatter
func.func @transpose(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %c16 = arith.constant dense<16> : tensor<16x16xi32>
  %rc = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rr = tile.expand_dims %r {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %rcb = tile.broadcast %rc : tensor<16x1xi32> -> tensor<16x16xi32>
  %rrb = tile.broadcast %rr : tensor<1x16xi32> -> tensor<16x16xi32>
  %a = arith.muli %rcb, %c16 : tensor<16x16xi32>
  %rowMajor = arith.addi %a, %rrb : tensor<16x16xi32>
  %b = arith.muli %rrb, %c16 : tensor<16x16xi32>
  %colMajor = arith.addi %b, %rcb : tensor<16x16xi32>
  %xs = tile.splat %x : tensor<16x16x!tile.ptr<f32>>
  %p = tile.addptr %xs, %rowMajor : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
  %q = tile.addptr %xs, %colMajor : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
  %v = tile.load %q : tensor<16x16x!tile.ptr<f32>> -> tensor<16x16xf32>
  tile.store %q, %v : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xf32>
  return
}

// -----

// The fast_* functions (`afn`) run accurately, no flag left for LLVM, with the GPU
// instruction's .ftz emulated: lg2.approx.ftz reads a subnormal input as a zero of its sign
// (|x| < 2^-126 selects copysign(0, x)); tanh.approx has no .ftz form (no select).
// CHECK-LABEL: func.func @fast_math
// CHECK: %[[ABS:.*]] = math.absf %[[X:.*]] : vector<
// CHECK: %[[TINY:.*]] = arith.cmpf olt, %[[ABS]], %{{.*}} : vector<
// CHECK: %[[ZERO:.*]] = math.copysign %{{.*}}, %[[X]] : vector<
// CHECK: %[[IN:.*]] = arith.select %[[TINY]], %[[ZERO]], %[[X]]
// CHECK: %[[LOG:.*]] = math.log2 %[[IN]] : vector<
// CHECK-NOT: arith.select
// CHECK: math.tanh %[[LOG]] : vector<
// CHECK-NOT: afn
func.func @fast_math(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %xs = tile.splat %x : tensor<64x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = tile.load %p : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
  %l = math.log2 %v fastmath<afn> : tensor<64xf32>
  %t = math.tanh %l fastmath<afn> : tensor<64xf32>
  tile.store %p, %t : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  return
}
