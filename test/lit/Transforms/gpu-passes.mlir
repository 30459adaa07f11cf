// RUN: tile-opt %s -split-input-file --tile-gpu-passes | FileCheck %s

// The registered pipeline --tile-gpu-passes: what tilec runs before convert-tile-to-llvm
// (canonicalize/CSE, layouts, coalescing, dot operands through shared memory,
// pipelining, shared-memory placement, barriers), from traced tile IR.

// The library matmul's K loop on sm_90: two 3-stage rings (3 x 4096 bytes each) placed
// back to back, 24576 bytes of shared memory in all; two prologue commit groups and no
// barrier before the loop; in the loop exactly one barrier, after the wait and before the
// first refill copy; after the loop the wait for the last copies, then a barrier before
// the accumulator's layout conversion reuses the rings' space for its scratch.
// CHECK: module attributes {tile.shared_bytes = 24576 : i32, tile.target = "sm_90"}
// CHECK-LABEL: func.func @matmul_k_loop
// CHECK-NOT: tile.barrier
// CHECK: tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<3x64x32xf16
// CHECK-NEXT: tile.local_alloc {tile.offset = 12288 : i32} : () -> !tile.memdesc<3x32x64xf16
// CHECK-NOT: tile.barrier
// CHECK-COUNT-2: tile.async_commit_group
// CHECK-NOT: tile.barrier
// CHECK: scf.for
// CHECK-NEXT: tile.async_wait {pending = 1 : i32}
// CHECK-NOT: tile.async_copy
// CHECK: tile.barrier
// CHECK-NEXT: tile.async_copy
// CHECK-NOT: tile.barrier
// CHECK: tile.local_load %{{.*}} -> tensor<64x16xf16, #dot_op>
// CHECK-NEXT: tile.local_load %{{.*}} -> tensor<16x64xf16, #dot_op1>
// CHECK-NEXT: tile.dot
// CHECK-NEXT: tile.local_load %{{.*}} -> tensor<64x16xf16, #dot_op>
// CHECK-NEXT: tile.local_load %{{.*}} -> tensor<16x64xf16, #dot_op1>
// CHECK-NEXT: tile.dot
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_wait {pending = 0 : i32}
// CHECK-NOT: tile.convert_layout
// CHECK: tile.barrier
// CHECK-NEXT: tile.convert_layout %{{.*}} {tile.scratch_offset = 0 : i32} : tensor<64x64xf32, #mma>
// CHECK-NOT: tile.barrier
// CHECK: return
module attributes {tile.target = "sm_90"} {
func.func @matmul_k_loop(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                         %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %k: i32 {tile.divisibility = 16 : i32},
                         %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %rm = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %rk = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  // Row offsets of A (rm * k) and column offsets of B (rn), fixed over the loop.
  %rm2 = tile.expand_dims %rm {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ks = tile.splat %k : tensor<64x1xi32>
  %arow = arith.muli %rm2, %ks : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %rn2 = tile.expand_dims %rm {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %bcolb = tile.broadcast %rn2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %pa = tile.splat %a : tensor<64x32x!tile.ptr<f16>>
  %pb = tile.splat %b : tensor<32x64x!tile.ptr<f16>>
  %acc = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc1 = %acc0) -> (tensor<64x64xf32>) : i32 {
    %k0s = tile.splat %k0 : tensor<32xi32>
    %kk = arith.addi %k0s, %rk : tensor<32xi32>
    // A tile: rm * k + kk, masked kk < k.
    %kk2 = tile.expand_dims %kk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %kkb = tile.broadcast %kk2 : tensor<1x32xi32> -> tensor<64x32xi32>
    %aoff = arith.addi %arowb, %kkb : tensor<64x32xi32>
    %qa = tile.addptr %pa, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %kl = tile.splat %k : tensor<64x32xi32>
    %ma = arith.cmpi slt, %kkb, %kl : tensor<64x32xi32>
    %ta = tile.load %qa, %ma : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi1> -> tensor<64x32xf16>
    // B tile: kk * n + rn, masked kk < k.
    %kc = tile.expand_dims %kk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %ns = tile.splat %n : tensor<32x1xi32>
    %brow = arith.muli %kc, %ns : tensor<32x1xi32>
    %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
    %boff = arith.addi %browb, %bcolb : tensor<32x64xi32>
    %qb = tile.addptr %pb, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %kcb = tile.broadcast %kc : tensor<32x1xi32> -> tensor<32x64xi32>
    %kl2 = tile.splat %k : tensor<32x64xi32>
    %mb = arith.cmpi slt, %kcb, %kl2 : tensor<32x64xi32>
    %tb = tile.load %qb, %mb : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi1> -> tensor<32x64xf16>
    %d = tile.dot %ta, %tb, %acc1 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  // Store C [64, 64] row-major with row stride n.
  %rm3 = tile.expand_dims %rm {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ns3 = tile.splat %n : tensor<64x1xi32>
  %crow = arith.muli %rm3, %ns3 : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %rn3 = tile.expand_dims %rm {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %ccolb = tile.broadcast %rn3 : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %ccolb : tensor<64x64xi32>
  %pc = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  %qc = tile.addptr %pc, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %qc, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}

// -----

// The same K loop on sm_90a: wgmma. The rings are #tile.nvmma_shared and 4 deep by
// default (8192 + 8192 bytes per stage); a wgmma group stays in flight, so the copies run
// two iterations ahead: two prologue groups, wait(1), and the refill lands in the slot
// read two iterations before. The barrier in the loop follows a proxy fence (the async
// proxy's wgmma reads what cp.async wrote); the loop's result waits for the last group.
// CHECK: module attributes {tile.shared_bytes = 32768 : i32, tile.target = "sm_90a"}
// CHECK-LABEL: func.func @matmul_k_loop_wgmma
// CHECK: tile.local_alloc {tile.offset = {{[0-9]+}} : i32} : () -> !tile.memdesc<4x64x32xf16, #tile.nvmma_shared<swizzle = 64>>
// CHECK: tile.local_alloc {tile.offset = {{[0-9]+}} : i32} : () -> !tile.memdesc<4x32x64xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK-COUNT-2: tile.async_commit_group
// CHECK-NOT: tile.barrier
// CHECK: scf.for
// CHECK-NEXT: tile.async_wait {pending = 1 : i32}
// CHECK-NOT: tile.async_copy
// CHECK: tile.fence_async_shared
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.async_copy
// CHECK-NOT: tile.barrier
// CHECK: tile.warpgroup_dot {{.*}} {pendings = 1 : i32}
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_wait {pending = 0 : i32}
// CHECK-NEXT: tile.warpgroup_dot_wait %{{.*}} {pendings = 0 : i32}
// CHECK-NOT: tile.local_load
// CHECK: return
module attributes {tile.target = "sm_90a"} {
func.func @matmul_k_loop_wgmma(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                         %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %k: i32 {tile.divisibility = 16 : i32},
                         %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %rm = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %rk = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  // Row offsets of A (rm * k) and column offsets of B (rn), fixed over the loop.
  %rm2 = tile.expand_dims %rm {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ks = tile.splat %k : tensor<64x1xi32>
  %arow = arith.muli %rm2, %ks : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %rn2 = tile.expand_dims %rm {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %bcolb = tile.broadcast %rn2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %pa = tile.splat %a : tensor<64x32x!tile.ptr<f16>>
  %pb = tile.splat %b : tensor<32x64x!tile.ptr<f16>>
  %acc = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc1 = %acc0) -> (tensor<64x64xf32>) : i32 {
    %k0s = tile.splat %k0 : tensor<32xi32>
    %kk = arith.addi %k0s, %rk : tensor<32xi32>
    // A tile: rm * k + kk, masked kk < k.
    %kk2 = tile.expand_dims %kk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %kkb = tile.broadcast %kk2 : tensor<1x32xi32> -> tensor<64x32xi32>
    %aoff = arith.addi %arowb, %kkb : tensor<64x32xi32>
    %qa = tile.addptr %pa, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %kl = tile.splat %k : tensor<64x32xi32>
    %ma = arith.cmpi slt, %kkb, %kl : tensor<64x32xi32>
    %ta = tile.load %qa, %ma : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi1> -> tensor<64x32xf16>
    // B tile: kk * n + rn, masked kk < k.
    %kc = tile.expand_dims %kk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %ns = tile.splat %n : tensor<32x1xi32>
    %brow = arith.muli %kc, %ns : tensor<32x1xi32>
    %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
    %boff = arith.addi %browb, %bcolb : tensor<32x64xi32>
    %qb = tile.addptr %pb, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %kcb = tile.broadcast %kc : tensor<32x1xi32> -> tensor<32x64xi32>
    %kl2 = tile.splat %k : tensor<32x64xi32>
    %mb = arith.cmpi slt, %kcb, %kl2 : tensor<32x64xi32>
    %tb = tile.load %qb, %mb : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi1> -> tensor<32x64xf16>
    %d = tile.dot %ta, %tb, %acc1 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  // Store C [64, 64] row-major with row stride n.
  %rm3 = tile.expand_dims %rm {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ns3 = tile.splat %n : tensor<64x1xi32>
  %crow = arith.muli %rm3, %ns3 : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %rn3 = tile.expand_dims %rm {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %ccolb = tile.broadcast %rn3 : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %ccolb : tensor<64x64xi32>
  %pc = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  %qc = tile.addptr %pc, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %qc, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}

// -----

// A vector add needs no shared memory: no offsets, no barrier, no tile.shared_bytes.
// CHECK: module attributes {tile.target = "sm_90"}
// CHECK-LABEL: func.func @vector_add
// CHECK-NOT: tile.barrier
// CHECK-NOT: tile.local_alloc
// CHECK: return
module attributes {tile.target = "sm_90"} {
func.func @vector_add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pid = tile.program_id 0 : i32
  %c = arith.constant 1024 : i32
  %b = arith.muli %pid, %c : i32
  %bs = tile.splat %b : tensor<1024xi32>
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %offs = arith.addi %bs, %r : tensor<1024xi32>
  %ns = tile.splat %n : tensor<1024xi32>
  %m = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %px = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %ys = tile.splat %y : tensor<1024x!tile.ptr<f32>>
  %py = tile.addptr %ys, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %vx = tile.load %px, %m : tensor<1024x!tile.ptr<f32>>, tensor<1024xi1> -> tensor<1024xf32>
  %vy = tile.load %py, %m : tensor<1024x!tile.ptr<f32>>, tensor<1024xi1> -> tensor<1024xf32>
  %s = arith.addf %vx, %vy : tensor<1024xf32>
  tile.store %px, %s, %m : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>, tensor<1024xi1>
  return
}
}

// -----

// The whole sequence leaves no layout conversion where none is needed: ranges feeding
// expand_dims end up built directly in the slice layout (assign-layouts converts them,
// remove-layout-conversions rebuilds them); the row reduction yields a slice that
// expand_dims turns back into the parent layout.
// CHECK: #[[B2:.*]] = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK: #[[S1:.*]] = #tile.slice<dim = 1, parent = #[[B2]]>
// CHECK: #[[S0:.*]] = #tile.slice<dim = 0, parent = #[[B2]]>
// CHECK-LABEL: func.func @rows
// CHECK-NOT: tile.convert_layout
// CHECK: tile.make_range {{.*}} : tensor<16xi32, #[[S1]]>
// CHECK: tile.make_range {{.*}} : tensor<128xi32, #[[S0]]>
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

// Index arithmetic over ranges (pid * 16 + arange) feeding expand_dims ends up recomputed
// in the slice layout rather than moved through shared memory.
// CHECK-LABEL: func.func @remat_index_math
// CHECK-NOT: tile.convert_layout
// CHECK: tile.expand_dims
func.func @remat_index_math(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pid = tile.program_id 0 : i32
  %c16 = arith.constant 16 : i32
  %base = arith.muli %pid, %c16 : i32
  %bs = tile.splat %base : tensor<16xi32>
  %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %rows = arith.addi %bs, %r : tensor<16xi32>
  %xs1 = tile.splat %x : tensor<16x!tile.ptr<f32>>
  %p1 = tile.addptr %xs1, %rows : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %v1 = tile.load %p1 : tensor<16x!tile.ptr<f32>> -> tensor<16xf32>
  tile.store %p1, %v1 : tensor<16x!tile.ptr<f32>>, tensor<16xf32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rb = tile.broadcast %r2 : tensor<16x1xi32> -> tensor<16x64xi32>
  %xs = tile.splat %x : tensor<16x64x!tile.ptr<f32>>
  %p = tile.addptr %xs, %rb : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  %v = tile.load %p : tensor<16x64x!tile.ptr<f32>> -> tensor<16x64xf32>
  tile.store %p, %v : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xf32>
  return
}
