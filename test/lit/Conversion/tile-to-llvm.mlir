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
  %old = tile.atomic_rmw add %p, %one {tile.vec = 1 : i32} : tensor<32x!tile.ptr<f32>, #b>, tensor<32xf32, #b>
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

// -----

// tile.warpgroup_dot with a in registers (wgmma's RS form, no NVVM op): per K step of 16 one
// inline wgmma.mma_async taking the 32 accumulators tied in and out, a's fragment as four
// b32 registers and b's descriptor; scale-d, imm-scale-a/b 1, imm-trans-b 1 for this b
// ([K, N] stored N-major). a's registers are packed and tied before wgmma.fence, then the
// group is committed and waited for as in the shared-memory form.
// CHECK-LABEL: llvm.func @wgmma_register_a
// CHECK: %[[TIE:.*]] = llvm.inline_asm has_side_effects "", "=r,=r,=r,=r,=r,=r,=r,=r,0,1,2,3,4,5,6,7"
// CHECK: %[[A0:[0-9]+]] = llvm.extractvalue %[[TIE]][0]
// CHECK: %[[A1:[0-9]+]] = llvm.extractvalue %[[TIE]][1]
// CHECK: %[[A2:[0-9]+]] = llvm.extractvalue %[[TIE]][2]
// CHECK: %[[A3:[0-9]+]] = llvm.extractvalue %[[TIE]][3]
// CHECK: %[[A4:[0-9]+]] = llvm.extractvalue %[[TIE]][4]
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: llvm.inline_asm has_side_effects "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, $1, {{.*}}, $31}, {$64, $65, $66, $67}, $68, 1, 1, 1, 1;", "{{(=f,){32}0}},1,{{.*}},31,r,r,r,r,l" {{(%[0-9]+, ){32}%}}[[A0]], %[[A1]], %[[A2]], %[[A3]], %{{[0-9]+}} :
// CHECK: llvm.inline_asm has_side_effects "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, $68, 1, 1, 1, 1;", {{.*}} {{(%[0-9]+, ){32}%}}[[A4]],
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma>
#nvmma = #tile.nvmma_shared<swizzle = 128>
module attributes {tile.target = "sm_90a"} {
func.func @wgmma_register_a(%o: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %a = arith.constant dense<1.0> : tensor<64x32xf16, #dot_op>
  %b = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<32x64xf16, #nvmma>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %d = tile.warpgroup_dot %a, %b, %acc : tensor<64x32xf16, #dot_op> * !tile.memdesc<32x64xf16, #nvmma> -> tensor<64x64xf32, #mma>
  %po = tile.splat %o : tensor<64x64x!tile.ptr<f32>, #mma>
  tile.store %po, %d : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
  return
}
}

// -----

// bf16, two warpgroups (one 64-row slab each), b read K-major through a transposed view:
// imm-trans-b 0.
// CHECK-LABEL: llvm.func @wgmma_register_a_bf16_k_major_b
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm has_side_effects "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {$0, {{.*}}, $15}, {$32, $33, $34, $35}, $36, 1, 1, 1, 0;"
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma>
#nvmma = #tile.nvmma_shared<swizzle = 32>
#nvmma_t = #tile.nvmma_shared<swizzle = 32, transposed = true>
module attributes {tile.target = "sm_90a"} {
func.func @wgmma_register_a_bf16_k_major_b(%o: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %a = arith.constant dense<1.0> : tensor<128x16xbf16, #dot_op>
  %bt = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<32x16xbf16, #nvmma>
  %b = tile.memdesc_trans %bt : !tile.memdesc<32x16xbf16, #nvmma> -> !tile.memdesc<16x32xbf16, #nvmma_t>
  %acc = arith.constant dense<0.0> : tensor<128x32xf32, #mma>
  %d = tile.warpgroup_dot %a, %b, %acc : tensor<128x16xbf16, #dot_op> * !tile.memdesc<16x32xbf16, #nvmma_t> -> tensor<128x32xf32, #mma>
  %po = tile.splat %o : tensor<128x32x!tile.ptr<f32>, #mma>
  tile.store %po, %d : tensor<128x32x!tile.ptr<f32>, #mma>, tensor<128x32xf32, #mma>
  return
}
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// exp2 with the `afn` fast-math flag (the DSL's fast_exp2) is the GPU's approximate
// instruction, ex2.approx.ftz.f32, one per element; plain exp2 stays libdevice's IEEE exp2f.
// CHECK-LABEL: llvm.func @fast_and_exact_exp2
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-NOT: llvm.call_intrinsic "llvm.nvvm.ex2
// CHECK-COUNT-4: llvm.call @__nv_exp2f
func.func @fast_and_exact_exp2(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #b>
  %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #b>, tensor<512xi32, #b>
  %v = tile.load %p {tile.vec = 4 : i32} : tensor<512x!tile.ptr<f32>, #b> -> tensor<512xf32, #b>
  %f = math.exp2 %v fastmath<afn> : tensor<512xf32, #b>
  %e = math.exp2 %f : tensor<512xf32, #b>
  tile.store %p, %e {tile.vec = 4 : i32} : tensor<512x!tile.ptr<f32>, #b>, tensor<512xf32, #b>
  return
}
