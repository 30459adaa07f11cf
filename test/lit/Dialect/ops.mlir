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
  // CHECK: tile.atomic_rmw add %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
  %old = tile.atomic_rmw add %ptrs, %s, %m : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
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

// Shared memory as IR: the memdesc type (2-D, and 3-D with a leading stage dimension),
// the swizzled_shared layout and every op on buffers. The 16-bit local_load into a
// dot_operand layout is the ldmatrix form; i32 indices select a ring's buffer; the
// async_copy prints with and without its mask; async_wait keeps its pending count.
// Operand types of the tile dialect print without their `!tile.memdesc` prefix.
// The dot_operand layouts of the two ldmatrix loads print as aliases of one mma parent.
// RUN: tile-opt %s | tile-opt | FileCheck %s --check-prefix=ALIAS
// ALIAS: #mma = #tile.mma<warpsPerCTA = [2, 2]>
// ALIAS: #dot_op = #tile.dot_operand<opIdx = 0, parent = #mma>
// ALIAS: #dot_op1 = #tile.dot_operand<opIdx = 1, parent = #mma>
// CHECK-LABEL: func.func @shared_memory_ops
// CHECK-SAME: %[[X:[^:]*]]: tensor<64x32xf16, #blocked1>
// CHECK-SAME: %[[P:[^:]*]]: tensor<64x32x!tile.ptr<f16>, #blocked1>
// CHECK-SAME: %[[M:[^:]*]]: tensor<64x32xi1, #blocked1>
// CHECK-SAME: %[[I:[^:]*]]: i32
// CHECK-SAME: %[[Q:[^:]*]]: tensor<32x64x!tile.ptr<bf16>, #blocked1>
func.func @shared_memory_ops(%x: tensor<64x32xf16, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>,
                             %p: tensor<64x32x!tile.ptr<f16>, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>,
                             %m: tensor<64x32xi1, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>,
                             %i: i32,
                             %q: tensor<32x64x!tile.ptr<bf16>, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>) attributes {tile.kernel} {
  // CHECK: %[[A:.*]] = tile.local_alloc %[[X]] {tile.offset = 0 : i32} : (tensor<64x32xf16, #blocked1>) -> !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  %a = tile.local_alloc %x {tile.offset = 0 : i32} : (tensor<64x32xf16, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>) -> !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  // CHECK: tile.local_load %[[A]] : <64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> tensor<64x32xf16, #blocked1>
  %l = tile.local_load %a : !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> tensor<64x32xf16, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>
  // A window of the buffer: the K slice [0, 64) x [16, 32).
  // CHECK: tile.local_load %[[A]] {offsets = array<i64: 0, 16>} : <64x32xf16, {{.*}}> -> tensor<64x16xf16, #blocked1>
  %w = tile.local_load %a {offsets = array<i64: 0, 16>} : !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> tensor<64x16xf16, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>
  // CHECK: tile.local_load %[[A]] : <64x32xf16, {{.*}}> -> tensor<64x32xf16, #dot_op>
  %d = tile.local_load %a : !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> tensor<64x32xf16, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [2, 2]>>>
  // CHECK: tile.local_store %[[X]], %[[A]] : tensor<64x32xf16, #blocked1>, <64x32xf16, {{.*}}>
  tile.local_store %x, %a : tensor<64x32xf16, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>, !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  // CHECK: %[[R:.*]] = tile.local_alloc : () -> !tile.memdesc<3x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  %ring = tile.local_alloc : () -> !tile.memdesc<3x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  // CHECK: %[[S:.*]] = tile.memdesc_index %[[R]][%[[I]]] : <3x64x32xf16, {{.*}}> -> <64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  %s = tile.memdesc_index %ring[%i] : !tile.memdesc<3x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  // CHECK: tile.async_copy %[[P]], %[[S]], %[[M]] {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked1>, <64x32xf16, {{.*}}>, tensor<64x32xi1, #blocked1>
  tile.async_copy %p, %s, %m {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>, !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>, tensor<64x32xi1, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>
  // CHECK: %[[B:.*]] = tile.local_alloc : () -> !tile.memdesc<32x64xbf16, #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  %b = tile.local_alloc : () -> !tile.memdesc<32x64xbf16, #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  // CHECK: tile.async_copy %[[Q]], %[[B]] : tensor<32x64x!tile.ptr<bf16>, #blocked1>, <32x64xbf16, #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>{{$}}
  tile.async_copy %q, %b : tensor<32x64x!tile.ptr<bf16>, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>, !tile.memdesc<32x64xbf16, #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  // CHECK: tile.async_commit_group
  tile.async_commit_group
  // CHECK: tile.async_wait {pending = 2 : i32}
  tile.async_wait {pending = 2 : i32}
  // CHECK: tile.barrier
  tile.barrier
  // CHECK: tile.local_load %[[B]] : <32x64xbf16, {{.*}}> -> tensor<32x64xbf16, #dot_op1>
  %e = tile.local_load %b : !tile.memdesc<32x64xbf16, #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>> -> tensor<32x64xbf16, #tile.dot_operand<opIdx = 1, parent = #tile.mma<warpsPerCTA = [2, 2]>>>
  return
}

// The memdesc type alone: integer elements, no swizzle (maxPhase = 1), a 2-stage ring.
// CHECK-LABEL: func.func @memdesc_types
// CHECK-SAME: !tile.memdesc<8x16xi8, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
// CHECK-SAME: !tile.memdesc<2x16x16xf32, #tile.swizzled_shared<vec = 4, perPhase = 2, maxPhase = 4, order = [1, 0]>>
func.func @memdesc_types(%a: !tile.memdesc<8x16xi8, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>,
                         %b: !tile.memdesc<2x16x16xf32, #tile.swizzled_shared<vec = 4, perPhase = 2, maxPhase = 4, order = [1, 0]>>) {
  return
}

// Tensor descriptors: the accessors, a descriptor box on a masked load, store and atomic add,
// and the TMA and mbarrier ops tile-pipeline and tile-tma-stores create on sm_90a.
// CHECK-LABEL: func.func @descriptors
// CHECK: tile.descriptor_base %{{.*}} : <f16, 2> -> <f16>
// CHECK: tile.descriptor_dim %{{.*}} {dim = 1 : i32, stride = true} : <f16, 2>
// CHECK: tile.load %{{.*}}, %{{.*}}, %{{.*}} box %{{.*}}[%{{.*}}, %{{.*}}] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>>
// CHECK: tile.init_barriers %{{.*}} : <4x1x1xi64
// CHECK: tile.barrier_expect %{{.*}}, %{{.*}} {bytes = 4096 : i32}
// CHECK: tile.async_tma_load %{{.*}}[%{{.*}}, %{{.*}}] -> %{{.*}}, %{{.*}}, %{{.*}} : <f16, 2>
// CHECK: tile.barrier_wait %{{.*}}, %{{.*}} : <1x1xi64
// CHECK: tile.invalidate_barriers
// CHECK: tile.store %{{.*}}, %{{.*}}, %{{.*}} box %{{.*}}[%{{.*}}, %{{.*}}] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>>
// CHECK: tile.async_tma_store %{{.*}} -> %{{.*}}[%{{.*}}, %{{.*}}] : <64x32xf16, #tile.nvmma_shared<swizzle = 64>>, <f16, 2>
// CHECK: tile.atomic_rmw add %{{.*}}, %{{.*}}, %{{.*}} box %{{.*}}[%{{.*}}, %{{.*}}] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>>
// CHECK: tile.async_tma_store add %{{.*}} -> %{{.*}}[%{{.*}}, %{{.*}}] : <64x32xf16, #tile.nvmma_shared<swizzle = 64>>, <f16, 2>
// CHECK: tile.async_tma_store_wait
func.func @descriptors(%d: !tile.tensordesc<f16, 2>, %p: tensor<64x32x!tile.ptr<f16>>, %m: tensor<64x32xi1>,
                       %z: tensor<64x32xf16>, %o: i32, %pred: i1) {
  %base = tile.descriptor_base %d : !tile.tensordesc<f16, 2> -> !tile.ptr<f16>
  %s = tile.descriptor_dim %d {dim = 1 : i32, stride = true} : !tile.tensordesc<f16, 2>
  %v = tile.load %p, %m, %z box %d[%o, %o] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi1>, tensor<64x32xf16> -> tensor<64x32xf16>
  %bars = tile.local_alloc : () -> !tile.memdesc<4x1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  tile.init_barriers %bars : !tile.memdesc<4x1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  %i = arith.constant 0 : i32
  %bar = tile.memdesc_index %bars[%i] : !tile.memdesc<4x1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>> -> !tile.memdesc<1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  %buf = tile.local_alloc : () -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
  tile.barrier_expect %bar, %pred {bytes = 4096 : i32} : !tile.memdesc<1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  tile.async_tma_load %d[%o, %o] -> %buf, %bar, %pred : !tile.tensordesc<f16, 2>, !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>, !tile.memdesc<1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  tile.barrier_wait %bar, %i : !tile.memdesc<1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  tile.invalidate_barriers %bars : !tile.memdesc<4x1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  tile.store %p, %v, %m box %d[%o, %o] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xf16>, tensor<64x32xi1>
  tile.async_tma_store %buf -> %d[%o, %o] : !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>, !tile.tensordesc<f16, 2>
  %old = tile.atomic_rmw add %p, %v, %m box %d[%o, %o] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xf16>, tensor<64x32xi1>
  tile.async_tma_store add %buf -> %d[%o, %o] : !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>, !tile.tensordesc<f16, 2>
  tile.async_tma_store_wait
  return
}

// A warp-specialised loop's ops: the two regions, the empty ring's arrival count, the
// consumers' per-warp arrival, their warpgroups' turns.
// CHECK-LABEL: func.func @warp_specialize
// CHECK: tile.init_barriers %{{.*}} {count = 8 : i32} : <4x1x1xi64
// CHECK: tile.warp_specialize producer {
// CHECK: tile.barrier_wait
// CHECK: } consumers {
// CHECK: tile.barrier_arrive %{{.*}}, %{{.*}} : <1x1xi64
// CHECK: tile.turn_pass %{{.*}} {groups = 2 : i32, only = 1 : i32}
// CHECK: tile.turn_wait {groups = 2 : i32}
// CHECK: tile.turn_pass {groups = 2 : i32}
// CHECK: } {consumer_registers = 232 : i32, consumer_warps = 8 : i32, producer_registers = 40 : i32}
func.func @warp_specialize(%pred: i1, %i: i32) {
  %bars = tile.local_alloc : () -> !tile.memdesc<4x1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  tile.init_barriers %bars {count = 8 : i32} : !tile.memdesc<4x1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  %bar = tile.memdesc_index %bars[%i] : !tile.memdesc<4x1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>> -> !tile.memdesc<1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  tile.warp_specialize producer {
    tile.barrier_wait %bar, %i : !tile.memdesc<1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  } consumers {
    tile.barrier_arrive %bar, %pred : !tile.memdesc<1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
    tile.turn_pass %pred {groups = 2 : i32, only = 1 : i32}
    tile.turn_wait {groups = 2 : i32}
    tile.turn_pass {groups = 2 : i32}
  } {consumer_warps = 8 : i32, producer_registers = 40 : i32, consumer_registers = 232 : i32}
  return
}

// A transposed view of a wgmma operand buffer, and wgmma on f32 (tf32) K-major operands.
// CHECK-LABEL: func.func @transposed_operands
// CHECK: %[[T:.*]] = tile.memdesc_trans %{{.*}} : <256x32xf32, #tile.nvmma_shared<swizzle = 128>> -> <32x256xf32, #tile.nvmma_shared<swizzle = 128, transposed = true>>
// CHECK: tile.warpgroup_dot %{{.*}}, %[[T]], %{{.*}} : <128x32xf32, #tile.nvmma_shared<swizzle = 128>> * <32x256xf32, #tile.nvmma_shared<swizzle = 128, transposed = true>>
// CHECK: tile.memdesc_trans %{{.*}} : <64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> <32x64xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]>>
func.func @transposed_operands(%acc: tensor<128x256xf32, #tile.mma<warpsPerCTA = [8, 1]>>) {
  %a = tile.local_alloc : () -> !tile.memdesc<128x32xf32, #tile.nvmma_shared<swizzle = 128>>
  %bt = tile.local_alloc : () -> !tile.memdesc<256x32xf32, #tile.nvmma_shared<swizzle = 128>>
  %b = tile.memdesc_trans %bt : !tile.memdesc<256x32xf32, #tile.nvmma_shared<swizzle = 128>> -> !tile.memdesc<32x256xf32, #tile.nvmma_shared<swizzle = 128, transposed = true>>
  %d = tile.warpgroup_dot %a, %b, %acc : !tile.memdesc<128x32xf32, #tile.nvmma_shared<swizzle = 128>> * !tile.memdesc<32x256xf32, #tile.nvmma_shared<swizzle = 128, transposed = true>> -> tensor<128x256xf32, #tile.mma<warpsPerCTA = [8, 1]>>
  %s = tile.local_alloc : () -> !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  %st = tile.memdesc_trans %s : !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> !tile.memdesc<32x64xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]>>
  return
}

// wgmma with a in registers (mma.sync's A fragments of the accumulator's layout), b a buffer.
// CHECK-LABEL: func.func @register_a
// CHECK: tile.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x64xbf16, #dot_op{{[0-9]*}}> * <64x128xbf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<128x128xf32, #mma{{[0-9]*}}>
func.func @register_a(%p: tensor<128x64xbf16, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [8, 1]>>>,
                      %acc: tensor<128x128xf32, #tile.mma<warpsPerCTA = [8, 1]>>) {
  %v = tile.local_alloc : () -> !tile.memdesc<64x128xbf16, #tile.nvmma_shared<swizzle = 128>>
  %d = tile.warpgroup_dot %p, %v, %acc : tensor<128x64xbf16, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [8, 1]>>> * !tile.memdesc<64x128xbf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<128x128xf32, #tile.mma<warpsPerCTA = [8, 1]>>
  return
}

// Every atomic kind; sem and scope print only where they are not the defaults (relaxed, gpu).
// CHECK-LABEL: func.func @atomics
// CHECK: tile.atomic_rmw max %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
// CHECK: tile.atomic_rmw xor %{{.*}}, %{{.*}}, %{{.*}} {scope = #tile.mem_scope<cta>, sem = #tile.mem_sem<acq_rel>} : tensor<128x!tile.ptr<i32>>, tensor<128xi32>, tensor<128xi1>
// CHECK: tile.atomic_rmw xchg %{{.*}}, %{{.*}} {sem = #tile.mem_sem<release>} : !tile.ptr<f32>, f32
// CHECK: tile.atomic_cas %{{.*}}, %{{.*}}, %{{.*}} {scope = #tile.mem_scope<sys>, sem = #tile.mem_sem<acquire>} : !tile.ptr<i64>, i64
func.func @atomics(%pi: tensor<128x!tile.ptr<i32>>, %vi: tensor<128xi32>, %m: tensor<128xi1>, %pf: !tile.ptr<f32>, %f: f32, %pl: !tile.ptr<i64>, %l: i64) {
  %a = tile.atomic_rmw max %pi, %vi : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  %b = tile.atomic_rmw xor %pi, %vi, %m {sem = #tile.mem_sem<acq_rel>, scope = #tile.mem_scope<cta>} : tensor<128x!tile.ptr<i32>>, tensor<128xi32>, tensor<128xi1>
  %c = tile.atomic_rmw xchg %pf, %f {sem = #tile.mem_sem<release>, scope = #tile.mem_scope<gpu>} : !tile.ptr<f32>, f32
  %d = tile.atomic_cas %pl, %l, %l {sem = #tile.mem_sem<acquire>, scope = #tile.mem_scope<sys>} : !tile.ptr<i64>, i64
  return
}
