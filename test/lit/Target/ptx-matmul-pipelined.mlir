// A K loop of f16 dots, the shape of the library matmul (A [M, K] row-major, B [K, N]
// row-major, ragged K masked): on sm_80 the operand tiles are copied with cp.async (16
// bytes per thread) into 3-stage rings of swizzled shared memory, read with ldmatrix
// (.trans for B), multiplied with mma.sync, one barrier per iteration, no spills.
// On sm_90a (the default for sm_90) the rings are #tile.nvmma_shared, 4 stages deep, read
// by wgmma through descriptors with one group in flight: the copies run two iterations
// ahead (wait_group 1), each writer fences the async proxy before the barrier, the K
// loop's wgmmas wait for at most one group, and the epilogue waits for all.
// RUN: tilec %s --stage=ptx --sm=80 --ptx-version=80 | FileCheck %s
// RUN: tilec %s --stage=ptx | FileCheck %s --check-prefix=WGMMA
// RUN: %if ptxas %{ tilec %s --stage=regs | FileCheck %s --check-prefix=REGS %}
// RUN: %if ptxas %{ tilec %s --stage=regs --sm=80 --ptx-version=80 | FileCheck %s --check-prefix=REGS %}

// WGMMA: .target sm_90a
// WGMMA-LABEL: .entry matmul_k_loop
// WGMMA: cp.async.cg.shared.global
// WGMMA: cp.async.commit_group
// WGMMA: cp.async.wait_group 1
// WGMMA: fence.proxy.async.shared::cta
// WGMMA-NEXT: bar.sync 0
// WGMMA: wgmma.fence.sync.aligned
// WGMMA: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// WGMMA: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// WGMMA-NOT: wgmma.mma_async
// WGMMA: wgmma.commit_group.sync.aligned
// WGMMA: wgmma.wait_group.sync.aligned 1
// WGMMA: wgmma.wait_group.sync.aligned 0
// WGMMA-NOT: ldmatrix
// WGMMA-NOT: .local

// CHECK-LABEL: .entry matmul_k_loop
// CHECK: cp.async.cg.shared.global
// CHECK: cp.async.commit_group
// CHECK: cp.async.wait_group 1
// CHECK: bar.sync 0
// CHECK-NOT: bar.sync
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: cp.async.wait_group 0
// CHECK-NOT: .local
// REGS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
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
