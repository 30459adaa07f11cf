// The library's descriptor matmul (MatmulTma, kernels/include/tile/kernels/Matmul.h) on
// sm_90a: both operands of the K loop move by TMA (cp.async.bulk.tensor into the 128-byte
// swizzled wgmma rings, 4 deep for this tile), thread 0 announces each stage's bytes on its
// mbarrier and every thread waits for the stage's phase (mbarrier.try_wait.parity); no thread
// computes an operand address or issues cp.async. The descriptors arrive as byval grid
// constants of 168 bytes (tile::TensorDescParam: the TMA map first). One barrier per iteration
// remains (before the refill of the slot the oldest in-flight wgmma read); after the loop every
// wgmma completes and a barrier passes before the mbarriers are invalidated and the rings' memory
// serves the epilogue, whose C block leaves by a TMA store. On sm_80 the same
// kernel reads its blocks with cp.async and ldmatrix, and no TMA or mbarrier appears.
// RUN: tilec --kernel=matmul_tma_f16 --spec=w8,s4,d16,d16,d16,p16,i16,i16,i16,c128,c256,c64,c8,c0,c0 --stage=ptx | FileCheck %s
// RUN: tilec --kernel=matmul_tma_f16 --spec=w4,d16,d16,d16,p16,i16,i16,i16,c128,c128,c32,c8,c0,c0 --stage=ptx --sm=80 --ptx-version=80 | FileCheck %s --check-prefix=SM80
// RUN: %if ptxas %{ tilec --kernel=matmul_tma_f16 --spec=w8,s4,d16,d16,d16,p16,i16,i16,i16,c128,c256,c64,c8,c0,c0 --stage=regs | FileCheck %s --check-prefix=REGS %}

// CHECK: .target sm_90a
// CHECK-LABEL: .entry matmul_tma_f16
// CHECK: .param .align 64 .b8 matmul_tma_f16_param_0[168]
// CHECK: .param .align 64 .b8 matmul_tma_f16_param_1[168]
// CHECK: .param .align 64 .b8 matmul_tma_f16_param_2[168]
// CHECK: mbarrier.init.shared.b64
// CHECK: fence.mbarrier_init.release.cluster
// CHECK: mbarrier.arrive.expect_tx.shared.b64
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// CHECK: wgmma.wait_group.sync.aligned 1
// CHECK: wgmma.wait_group.sync.aligned 0
// CHECK: bar.sync 0
// CHECK: mbarrier.inval.shared.b64
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-NOT: cp.async.cg.shared.global
// CHECK-NOT: .local
// REGS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// SM80-LABEL: .entry matmul_tma_f16
// SM80: cp.async.cg.shared.global
// SM80: ldmatrix.sync.aligned
// SM80: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// SM80-NOT: cp.async.bulk.tensor
// SM80-NOT: mbarrier
