// RUN: tile-opt %s -split-input-file --convert-tile-to-llvm | FileCheck %s

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// A 512-element tensor on 128 threads is 4 registers; a group of 4 becomes one
// vector<4xf32> access guarded by its mask; the kernel is an nvvm.kernel.
// CHECK-LABEL: llvm.func @copy
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 128, 1, 1>
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: llvm.cond_br
// CHECK: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
func.func @copy(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #b>
  %ns = tile.splat %n : tensor<512xi32, #b>
  %m = arith.cmpi slt, %r, %ns : tensor<512xi32, #b>
  %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #b>, tensor<512xi32, #b>
  %v = tile.load %p, %m {tile.vec = 4 : i32} : tensor<512x!tile.ptr<f32>, #b>, tensor<512xi1, #b> -> tensor<512xf32, #b>
  tile.store %p, %v {tile.vec = 4 : i32} : tensor<512x!tile.ptr<f32>, #b>, tensor<512xf32, #b>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// A block-wide sum: in-thread adds, 5 butterfly shuffles, then the 4 warps' partials
// through shared memory with a barrier between the writes and the reads (a barrier
// before the writes is tile-insert-barriers' decision); exp goes to libdevice. The
// dynamic shared memory is 1024-byte aligned (128-byte swizzles need it).
// CHECK: module attributes {{{.*}}tile.shared_bytes = 16 : i32
// CHECK: llvm.mlir.global external @__tile_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.func @__nv_expf(f32) -> f32
// CHECK-LABEL: llvm.func @sum_exp
// CHECK: llvm.call @__nv_expf
// CHECK-COUNT-5: nvvm.shfl.sync{{ +}}bfly
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<3> -> f32
func.func @sum_exp(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #b>
  %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #b>, tensor<512xi32, #b>
  %v = tile.load %p {tile.vec = 4 : i32} : tensor<512x!tile.ptr<f32>, #b> -> tensor<512xf32, #b>
  %e = math.exp %v : tensor<512xf32, #b>
  %s = tile.reduce sum %e {axis = 0 : i32} : tensor<512xf32, #b> -> f32
  tile.store %x, %s {tile.vec = 1 : i32} : !tile.ptr<f32>, f32
  return
}

// -----

#b = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]>

// Atomics: one per element, only by the thread owning it; 32 elements on 64 threads
// replicate, so the owner test is part of the condition: the warp bit that only
// replicates (a free variable of the layout) must be clear.
// CHECK-LABEL: llvm.func @atomics
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: %[[FREE:.*]] = llvm.and %{{.*}}, %[[ONE]] : i32
// CHECK: llvm.icmp "eq" %[[FREE]]
// CHECK: llvm.atomicrmw fadd {{.*}} monotonic
func.func @atomics(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #b>
  %xs = tile.splat %x : tensor<32x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<32x!tile.ptr<f32>, #b>, tensor<32xi32, #b>
  %one = arith.constant dense<1.0> : tensor<32xf32, #b>
  %old = tile.atomic_add %p, %one {tile.vec = 1 : i32} : tensor<32x!tile.ptr<f32>, #b>, tensor<32xf32, #b>
  return
}

// -----

// A scalar select of two pointers (the DSL's where() on scalar pointers) keeps its op with
// the pointers converted, and lowers to one llvm.select.
// CHECK-LABEL: llvm.func @select_pointer
// CHECK: %[[P:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, !llvm.ptr<1>
// CHECK: llvm.store %{{.*}}, %[[P]]
func.func @select_pointer(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %zero = arith.constant 0 : i32
  %c = arith.cmpi eq, %n, %zero : i32
  %p = arith.select %c, %x, %y : !tile.ptr<f32>
  %v = arith.constant 1.0 : f32
  tile.store %p, %v {tile.vec = 1 : i32} : !tile.ptr<f32>, f32
  return
}
