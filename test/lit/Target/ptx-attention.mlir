// The library's attention forward (kernels/Attention.h, causal, head dim 128, 128 x 128 tiles on
// two warpgroups) as tilec compiles it for sm_90a:
// - Q's block is one TMA copy before the loops (its own mbarrier, invalidated at the end), read by
//   both loops' S = Q Kᵀ wgmmas from one buffer;
// - K and V move by TMA in 2-slot rings, each loop's own;
// - the softmax runs in the accumulators' registers: the loops carry the row max and sum in the
//   slice of the mma layout and O in it, and convert nothing but P into wgmma's register operand,
//   which takes no shared memory (no scratch);
// - the epilogue converts O and the log-sum-exp once each for their stores.
// ptxas: no serialised wgmmas, no spills.
// RUN: tilec --kernel=attention_fwd_f16 --spec=w8,s2,d16,d16,d16,p16,p16,p16,i16,i16,i16,i,f,c128,c128,c128,c1,c0 --stage=opt | FileCheck %s
// RUN: %if ptxas %{ tilec --kernel=attention_fwd_f16 --spec=w8,s2,d16,d16,d16,p16,p16,p16,i16,i16,i16,i,f,c128,c128,c128,c1,c0 --stage=regs | FileCheck %s --check-prefix=REGS %}

// CHECK: %[[QBUF:.*]] = tile.local_alloc {{.*}} : () -> !tile.memdesc<1x128x128xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK: %[[QBAR:.*]] = tile.local_alloc {{.*}} : () -> !tile.memdesc<1x1x1xi64
// CHECK: tile.async_tma_load %arg0
// CHECK: tile.barrier_wait
// CHECK-COUNT-2: tile.async_tma_load
// CHECK: scf.for {{.*}} -> (tensor<128xf32, #slice>, tensor<128xf32, #slice>, tensor<128x128xf32, #mma>)
// CHECK-NOT: tile.convert_layout {{.*}}scratch
// CHECK: tile.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} : <128x128xf16, #tile.nvmma_shared<swizzle = 128>> * <128x128xf16, #tile.nvmma_shared<swizzle = 128, transposed = true>> -> tensor<128x128xf32, #mma>
// CHECK: tile.reduce max {{.*}} : tensor<128x128xf32, #mma> -> tensor<128xf32, #slice>
// CHECK: tile.convert_layout %{{.*}} : tensor<128x128xf16, #mma> -> tensor<128x128xf16, #dot_op>
// CHECK-NEXT: tile.warpgroup_dot %{{.*}} : tensor<128x128xf16, #dot_op> * <128x128xf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<128x128xf32, #mma>
// CHECK-NEXT: scf.yield
// CHECK: scf.for
// CHECK-NOT: tile.convert_layout {{.*}}scratch
// CHECK: scf.yield
// CHECK: tile.convert_layout {{.*}}scratch{{.*}} : tensor<128x128xf16, #mma> -> tensor<128x128xf16, #blocked
// CHECK: tile.invalidate_barriers %[[QBAR]]

// REGS-NOT: {{C75[0-9][0-9]}}
// REGS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
