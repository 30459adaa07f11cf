// The library's attention backward in its one-pass mode (kernels/AttentionBackward.h: the dK/dV
// kernel with DQ = 1, head dim 128, 64 x 128 tiles on two consumer warpgroups, warp-specialised)
// as tilec compiles it for sm_90a:
// - dQᵀ = Kᵀ dSᵀ reads the K block's buffer through a transposed view (wgmma's MN-major a), the
//   same buffer S = K Qᵀ reads untransposed: K (its rows past the sequence zeroed) is written
//   once;
// - dSᵀ is written to its staging buffer from the accumulator layout it is computed in (no
//   conversion through scratch) and read from there as dQᵀ's b, issued in one turn with dK;
//   the barrier that publishes the buffer comes before the turn (inside it, the
//   warpgroup holding the turn would wait there for the other, which waits for the turn);
// - the product is added to the accumulator by the TMA's reduce (cp.reduce.async.bulk.tensor
//   .add), where the block meets the tensor, with no masked fallback;
// - the warpgroup index of the wgmma descriptors is broadcast from lane 0 (shfl.sync idx), so
//   ptxas keeps it uniform;
// ptxas: no spills at the consumers' 240 registers.
// RUN: tilec --kernel=attention_bwd_dkdv_f16 --spec=w8,s2,d16,d16,d16,d16,p16,p16,p16,p16,d16,p16,i16,i16,i16,i16,f,c64,c128,c128,c0,c0,c1,c1 --stage=opt | FileCheck %s
// RUN: tilec --kernel=attention_bwd_dkdv_f16 --spec=w8,s2,d16,d16,d16,d16,p16,p16,p16,p16,d16,p16,i16,i16,i16,i16,f,c64,c128,c128,c0,c0,c1,c1 --stage=ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ tilec --kernel=attention_bwd_dkdv_f16 --spec=w8,s2,d16,d16,d16,d16,p16,p16,p16,p16,d16,p16,i16,i16,i16,i16,f,c64,c128,c128,c0,c0,c1,c1 --stage=regs | FileCheck %s --check-prefix=REGS %}
// WS = 2, the library's (LoopOptions::pingPong = false): the same loop without turns.
// RUN: tilec --kernel=attention_bwd_dkdv_f16 --spec=w8,s2,d16,d16,d16,d16,p16,p16,p16,p16,d16,p16,i16,i16,i16,i16,f,c64,c128,c128,c0,c0,c2,c1 --stage=opt | FileCheck %s --check-prefix=NOTURNS
// RUN: %if ptxas %{ tilec --kernel=attention_bwd_dkdv_f16 --spec=w8,s2,d16,d16,d16,d16,p16,p16,p16,p16,d16,p16,i16,i16,i16,i16,f,c64,c128,c128,c0,c0,c2,c1 --stage=regs | FileCheck %s --check-prefix=REGS %}

// CHECK: %[[K:.*]] = tile.local_alloc %{{.*}} : (tensor<128x128xf16, #blocked>) -> !tile.memdesc<128x128xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK-NOT: tile.local_alloc %{{.*}} : (tensor<128x128xf16
// CHECK: %[[KT:.*]] = tile.memdesc_trans %[[K]] : <128x128xf16, #tile.nvmma_shared<swizzle = 128>> -> <128x128xf16, #tile.nvmma_shared<swizzle = 128, transposed = true>>
// CHECK: scf.for
// CHECK: tile.warpgroup_dot %[[K]], %{{.*}} -> tensor<128x64xf32, #mma>
// dV (its a Pᵀ in registers) takes a turn of its own and runs on while dSᵀ is computed and
// staged: only the loop's yield reads it, so it is waited for before the next dot is issued
// (not later: ptxas would serialise the wgmmas, C7514, where the next dots' results are read
// before its wait; REGS below).
// CHECK: tile.turn_wait
// CHECK-NEXT: %[[DV:.*]] = tile.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} {pendings = 1 : i32} : tensor<128x64xf16, #dot_op>
// CHECK-NEXT: tile.turn_pass
// CHECK-NOT: tile.warpgroup_dot_wait %[[DV]]
// L and D, loaded whole in every warp, reach the accumulator's columns by shuffles (tile-
// remove-layout-conversions): no conversion through scratch, no barrier; and dSᵀ is written
// with none before it: the previous iteration's dQᵀ wgmmas finished reading it before the
// barrier that published their staged sum, which every path passes (tile-insert-barriers
// puts it before the branch that issues the add).
// CHECK-NOT: tile.convert_layout {{.*}}scratch_offset
// CHECK-NOT: tile.barrier{{$}}
// dSᵀ is published by the iteration's first barrier, where thread 0 also waits for the
// previous iteration's dQ copy to have read its staging buffer (not right after issuing it).
// CHECK: %[[DST:.*]] = tile.local_alloc %{{.*}} : (tensor<128x64xf16, #mma>) -> !tile.memdesc<128x64xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK-NEXT: tile.warpgroup_dot_wait %[[DV]] {pendings = 0 : i32}
// CHECK-NEXT: tile.barrier_arrive
// CHECK-NEXT: tile.async_tma_store_wait
// CHECK-NEXT: tile.fence_async_shared
// CHECK-NEXT: tile.barrier
// dQᵀ and then dK (its a dSᵀ in registers) are issued in one turn; dQᵀ is waited for right
// after it (wait_group 1), dK only once dQᵀ is staged and its add issued: dK's wgmmas run
// meanwhile (WarpGroupTurns.cpp's runs of independent dots).
// CHECK-NEXT: tile.turn_wait
// CHECK-NEXT: %[[DQT:.*]] = tile.warpgroup_dot %[[KT]], %[[DST]], %{{.*}} {pendings = 1 : i32} {{.*}} -> tensor<128x64xf32, #mma>
// CHECK-NOT: tile.turn
// CHECK: %[[DK:.*]] = tile.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} {pendings = 1 : i32} : tensor<128x64xf16, #dot_op> {{.*}} -> tensor<128x128xf32, #mma>
// CHECK-NOT: tile.warpgroup_dot_wait
// CHECK: tile.turn_pass
// CHECK-NEXT: %[[DQDONE:.*]] = tile.warpgroup_dot_wait %[[DQT]] {pendings = 1 : i32}
// CHECK-NOT: tile.warpgroup_dot_wait
// The staging buffer has bytes of its own in the loop (tile-allocate-shared): written with no
// barrier before it, and published by one before the branch.
// CHECK: %[[DQ:.*]] = tile.local_alloc %[[DQDONE]] {{.*}}: (tensor<128x64xf32, #mma>) -> !tile.memdesc<128x64xf32, #tile.nvmma_shared<swizzle = 128>>
// CHECK-NEXT: tile.fence_async_shared
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: scf.if
// CHECK-NEXT: tile.async_tma_store add %[[DQ]] -> %arg8
// CHECK-NEXT: }
// CHECK-NOT: else
// CHECK-NEXT: tile.warpgroup_dot_wait %[[DK]] {pendings = 0 : i32}

// PTX: shfl.sync.idx.b32
// PTX: wgmma.mma_async
// PTX: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// PTX: cp.async.bulk.wait_group.read 0

// REGS-NOT: Potential Performance Loss
// REGS: 0 bytes spill stores, 0 bytes spill loads

// NOTURNS-NOT: tile.turn_
// NOTURNS: tile.async_tma_store add
// NOTURNS-NOT: tile.turn_
