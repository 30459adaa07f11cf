// TF32 on Hopper's wgmma (MatmulTma<float, float, MatmulB::Transposed>): both operands
// K-major, B arriving as bᵀ [N, K] through its descriptor, the wgmma reading it through a
// transposed view of the ring it lands in. The copies are TMA's with tf32-rounding maps (type
// tf32 in the module's tile.tma_maps; C's map is plain f32), so no
// thread rounds anything: no cvt.rna, and wgmma m64n256k8 .tf32 without transpose operands. The
// C block leaves through shared memory by a TMA store, written straight from the accumulators'
// layout (no conversion), fenced for the async proxy, and thread 0 waits for the copy to
// have read it. No spills.
// RUN: tilec --kernel=matmul_tma_tf32_bt --spec=w8,s4,d16,d16,d16,p16,i16,i16,i16,c128,c256,c32,c8,c0,c0 --stage=opt | FileCheck %s --check-prefix=OPT
// RUN: tilec --kernel=matmul_tma_tf32_bt --spec=w8,s4,d16,d16,d16,p16,i16,i16,i16,c128,c256,c32,c8,c0,c0 --stage=ptx | FileCheck %s
// RUN: %if ptxas %{ tilec --kernel=matmul_tma_tf32_bt --spec=w8,s4,d16,d16,d16,p16,i16,i16,i16,c128,c256,c32,c8,c0,c0 --stage=regs | FileCheck %s --check-prefix=REGS %}

// OPT: tile.tma_maps = [#tile.tma_map<arg = 0, type = tf32, swizzle = 128, box = [128, 32]>, #tile.tma_map<arg = 1, type = tf32, swizzle = 128, box = [256, 32]>, #tile.tma_map<arg = 2, type = f32, swizzle = 128, box = [128, 32]>]
// OPT: tile.async_tma_load %arg1{{.*}} <256x32xf32, #tile.nvmma_shared<swizzle = 128>>
// OPT: %[[T:.*]] = tile.memdesc_trans %{{.*}} : <256x32xf32, #tile.nvmma_shared<swizzle = 128>> -> <32x256xf32, #tile.nvmma_shared<swizzle = 128, transposed = true>>
// OPT: tile.warpgroup_dot %{{.*}}, %[[T]], %{{.*}} {pendings = 1 : i32}
// OPT-NOT: tile.convert_layout %{{.*}} : tensor<128x256xf32
// OPT: %[[C:.*]] = tile.local_alloc %{{.*}} : (tensor<128x256xf32, #mma>) -> !tile.memdesc<128x256xf32, #tile.nvmma_shared<swizzle = 128>>
// OPT: tile.fence_async_shared
// OPT-NEXT: tile.barrier
// OPT-NEXT: tile.async_tma_store %[[C]] -> %arg2

// CHECK: .target sm_90a
// CHECK-LABEL: .entry matmul_tma_tf32_bt
// CHECK-NOT: cvt.rna.tf32
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK: wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {{.*}}, p, 1, 1;
// CHECK: wgmma.wait_group.sync.aligned 0
// CHECK: fence.proxy.async.shared::cta
// CHECK: bar.sync 0
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK: cp.async.bulk.commit_group
// CHECK: cp.async.bulk.wait_group.read 0
// CHECK-NOT: cvt.rna.tf32
// CHECK-NOT: .local
// REGS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
