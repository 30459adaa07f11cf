// The library's attention forward (kernels/Attention.h, causal, head dim 128, 128 x 128 tiles on
// two warpgroups) as tilec compiles it for sm_90a, warp-specialised:
// - K and V move by TMA into 2-slot rings that both loops (unmasked, then the diagonal blocks)
//   share, K and V each on `full` and `empty` mbarriers of its own; a producer warpgroup issues
//   every copy, waiting on the `empty` mbarriers, K's before V's;
// - the consumers copy Q's block once by TMA (its own mbarrier, invalidated at their end), read
//   by both loops' S = Q Kᵀ wgmmas from one buffer;
// - each loop waits for K's copy just before S = Q Kᵀ and frees K's slot once S is done, waits
//   for V's just before P V and frees it once P V is done; the two
//   warpgroups take turns at their wgmmas (turn_wait, the dot, turn_pass, then its wait), the
//   second passing once before the loops and skipping the pass after the last turn;
// - the softmax runs in the accumulators' registers: the loops carry the row max and sum in the
//   slice of the mma layout and O in it, and convert nothing but P into wgmma's register operand,
//   which takes no shared memory (no scratch);
// - the epilogue converts O and the log-sum-exp once each for their stores.
// ptxas: no serialised wgmmas, no spills.
// With WS = 2 (the library's schedule, LoopOptions::overlapIterations) each loop runs under
// scf.if (it has an iteration): the prologue issues S_0 in a turn of its own and computes its
// softmax; the kernel loop issues S_j and the previous block's P V in one turn (the second
// leaving both in flight, pendings = 2), waits for S_j alone (pendings = 1), computes the softmax
// meanwhile, then waits for P V and frees V's slot; P, alpha, the slot, V's phase and the
// iteration travel as carried values; the epilogue issues the last P V in a turn whose pass carries the skip.
// RUN: tilec --kernel=attention_fwd_f16 --spec=w8,s2,d16,d16,d16,p16,p16,p16,i16,i16,i16,i,f,c128,c128,c128,c1,c0,c1 --stage=opt | FileCheck %s
// RUN: %if ptxas %{ tilec --kernel=attention_fwd_f16 --spec=w8,s2,d16,d16,d16,p16,p16,p16,i16,i16,i16,i,f,c128,c128,c128,c1,c0,c1 --stage=regs | FileCheck %s --check-prefix=REGS %}
// RUN: tilec --kernel=attention_fwd_f16 --spec=w8,s3,d16,d16,d16,p16,p16,p16,i16,i16,i16,i,f,c128,c128,c128,c1,c0,c2 --stage=opt | FileCheck %s --check-prefix=OV
// RUN: %if ptxas %{ tilec --kernel=attention_fwd_f16 --spec=w8,s3,d16,d16,d16,p16,p16,p16,i16,i16,i16,i,f,c128,c128,c128,c1,c0,c2 --stage=regs | FileCheck %s --check-prefix=REGS %}

// CHECK: %[[KRING:.*]] = tile.local_alloc {{.*}} : () -> !tile.memdesc<2x128x128xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK: %[[VRING:.*]] = tile.local_alloc {{.*}} : () -> !tile.memdesc<2x128x128xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK: %[[KFULL:.*]] = tile.local_alloc {{.*}} : () -> !tile.memdesc<2x1x1xi64
// CHECK: %[[KEMPTY:.*]] = tile.local_alloc {{.*}} : () -> !tile.memdesc<2x1x1xi64
// CHECK: %[[VFULL:.*]] = tile.local_alloc {{.*}} : () -> !tile.memdesc<2x1x1xi64
// CHECK: %[[VEMPTY:.*]] = tile.local_alloc {{.*}} : () -> !tile.memdesc<2x1x1xi64
// CHECK: tile.warp_specialize producer {
// CHECK-COUNT-2: tile.async_tma_load
// CHECK: scf.for
// CHECK-COUNT-2: tile.async_tma_load
// CHECK: } consumers {
// CHECK: %[[QBUF:.*]] = tile.local_alloc {{.*}} : () -> !tile.memdesc<1x128x128xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK: %[[QBAR:.*]] = tile.local_alloc {{.*}} : () -> !tile.memdesc<1x1x1xi64
// CHECK: tile.async_tma_load %arg0
// CHECK: tile.barrier_wait
// CHECK-NEXT: %[[NONE:.*]] = arith.cmpi eq
// CHECK-NEXT: tile.turn_pass %[[NONE]] {groups = 2 : i32, only = 1 : i32}
// CHECK: scf.for {{.*}} -> (tensor<128xf32, #slice>, tensor<128xf32, #slice>, tensor<128x128xf32, #mma>)
// CHECK-NOT: tile.async_tma_load
// CHECK-NOT: tile.convert_layout {{.*}}scratch
// CHECK: %[[KREADY:.*]] = tile.memdesc_index %[[KFULL]]
// CHECK-NEXT: tile.barrier_wait %[[KREADY]]
// CHECK-NEXT: tile.turn_wait {groups = 2 : i32}
// CHECK-NEXT: %[[S:.*]] = tile.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} {pendings = 1 : i32} : <128x128xf16, #tile.nvmma_shared<swizzle = 128>> * <128x128xf16, #tile.nvmma_shared<swizzle = 128, transposed = true>> -> tensor<128x128xf32, #mma>
// CHECK-NEXT: tile.turn_pass {groups = 2 : i32}
// CHECK-NEXT: tile.warpgroup_dot_wait %[[S]] {pendings = 0 : i32}
// CHECK-NEXT: %[[KFREE:.*]] = tile.memdesc_index %[[KEMPTY]]
// CHECK-NEXT: tile.barrier_arrive %[[KFREE]]
// CHECK: tile.reduce max {{.*}} : tensor<128x128xf32, #mma> -> tensor<128xf32, #slice>
// CHECK: tile.convert_layout %{{.*}} : tensor<128x128xf16, #mma> -> tensor<128x128xf16, #dot_op>
// CHECK-NEXT: %[[VREADY:.*]] = tile.memdesc_index %[[VFULL]]
// CHECK-NEXT: tile.barrier_wait %[[VREADY]]
// CHECK-NEXT: tile.turn_wait {groups = 2 : i32}
// CHECK-NEXT: %[[O:.*]] = tile.warpgroup_dot %{{.*}} {pendings = 1 : i32} : tensor<128x128xf16, #dot_op> * <128x128xf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<128x128xf32, #mma>
// CHECK-NEXT: %[[LASTTURN:.*]] = arith.cmpi eq
// CHECK-NEXT: tile.turn_pass %[[LASTTURN]] {groups = 2 : i32}
// CHECK-NEXT: %[[VFREE:.*]] = tile.memdesc_index %[[VEMPTY]]
// CHECK-NEXT: tile.warpgroup_dot_wait %[[O]] {pendings = 0 : i32}
// CHECK-NEXT: tile.barrier_arrive %[[VFREE]]
// CHECK-NEXT: scf.yield
// CHECK: scf.for
// CHECK-NOT: tile.convert_layout {{.*}}scratch
// CHECK: tile.barrier_arrive
// CHECK: tile.barrier_arrive
// CHECK-NEXT: scf.yield
// CHECK: tile.invalidate_barriers %[[KFULL]]
// CHECK-NEXT: tile.invalidate_barriers %[[KEMPTY]]
// CHECK-NEXT: tile.invalidate_barriers %[[VFULL]]
// CHECK-NEXT: tile.invalidate_barriers %[[VEMPTY]]
// CHECK-NOT: tile.turn
// CHECK: tile.convert_layout {{.*}}scratch{{.*}} : tensor<128x128xf16, #mma> -> tensor<128x128xf16, #blocked
// CHECK: tile.invalidate_barriers %[[QBAR]]
// CHECK-NEXT: } {consumer_registers = 240 : i32, consumer_warps = 8 : i32, producer_registers = 24 : i32}

// REGS-NOT: {{C75[0-9][0-9]}}
// REGS-NOT: Potential Performance Loss
// REGS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// OV: } consumers {
// OV: tile.turn_pass %{{.*}} {groups = 2 : i32, only = 1 : i32}
// OV: %[[LAST:.*]] = arith.subi
// OV: scf.if
// OV: tile.turn_wait {groups = 2 : i32}
// OV-NEXT: %[[S0:.*]] = tile.warpgroup_dot {{.*}} {pendings = 1 : i32} : <128x128xf16
// OV-NEXT: tile.turn_pass {groups = 2 : i32}
// OV-NEXT: tile.warpgroup_dot_wait %[[S0]] {pendings = 0 : i32}
// OV: %[[P0:.*]] = tile.convert_layout %{{.*}} : tensor<128x128xf16, #mma> -> tensor<128x128xf16, #dot_op>
// OV: scf.for {{.*}} iter_args({{.*}}%[[ACC:arg[0-9]+]] = %{{.*}}, %[[SLOT:arg[0-9]+]] = %{{.*}}, %[[ALPHA:arg[0-9]+]] = %{{.*}}, %[[VPHASE:arg[0-9]+]] = %{{.*}}, %[[P:arg[0-9]+]] = %[[P0]], %[[G:arg[0-9]+]] = %{{.*}})
// OV: tile.barrier_wait
// OV: tile.turn_wait {groups = 2 : i32}
// OV-NEXT: %[[S:.*]] = tile.warpgroup_dot {{.*}} {pendings = 1 : i32} : <128x128xf16
// OV-NEXT: %[[V:.*]] = tile.memdesc_index %{{.*}}[%[[SLOT]]]
// OV: %[[SCALED:.*]] = arith.mulf %[[ACC]], %{{.*}} : tensor<128x128xf32, #mma>
// OV-NEXT: %[[VREADY:.*]] = tile.memdesc_index %{{.*}}[%[[SLOT]]]
// OV-NEXT: tile.barrier_wait %[[VREADY]], %[[VPHASE]]
// OV-NEXT: %[[O:.*]] = tile.warpgroup_dot %[[P]], %[[V]], %[[SCALED]] {pendings = 2 : i32}
// OV-NEXT: %[[NOTLAST:.*]] = arith.cmpi eq, %[[G]], %[[LAST]]
// OV-NEXT: tile.turn_pass %[[NOTLAST]] {groups = 2 : i32}
// OV-NEXT: tile.memdesc_index
// OV-NEXT: tile.warpgroup_dot_wait %[[S]] {pendings = 1 : i32}
// OV-NEXT: tile.memdesc_index
// OV-NEXT: tile.barrier_arrive
// OV: math.exp2
// OV: tile.convert_layout %{{.*}} : tensor<128x128xf16, #mma> -> tensor<128x128xf16, #dot_op>
// OV-NEXT: tile.warpgroup_dot_wait %[[O]] {pendings = 0 : i32}
// OV-NEXT: tile.barrier_arrive
// OV-NEXT: scf.yield
// OV-NEXT: } {tile.overlap_iterations, tile.warp_specialize}
// OV: tile.turn_wait {groups = 2 : i32}
// OV-NEXT: %[[OL:.*]] = tile.warpgroup_dot {{.*}} {pendings = 1 : i32} : tensor<128x128xf16, #dot_op>
// OV-NEXT: %[[ISLAST:.*]] = arith.cmpi eq, %{{.*}}, %[[LAST]]
// OV-NEXT: tile.turn_pass %[[ISLAST]] {groups = 2 : i32}
// OV-NEXT: tile.memdesc_index
// OV-NEXT: tile.warpgroup_dot_wait %[[OL]] {pendings = 0 : i32}
// OV: tile.barrier_arrive
// OV-NEXT: scf.yield
// OV: } else {
// OV: scf.if
// OV: scf.for
// OV: } {tile.overlap_iterations, tile.warp_specialize}
// OV: tile.invalidate_barriers
