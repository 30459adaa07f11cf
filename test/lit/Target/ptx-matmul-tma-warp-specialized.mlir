// The library's descriptor matmul with its K loop warp-specialised (MatmulTma's WARP_SPECIALIZE,
// LoopOptions::warpSpecialize) on sm_90a. tile-warp-specialize splits the kernel (tile.warp_specialize):
// the 8 consumer warps keep the layouts and run the loop without copies; a producer warpgroup
// (warps 8-11: the launch runs 384 threads) gives registers back (setmaxnreg.dec 24, the
// consumers take 240: ptxas honours them with .minnctapersm 1), and its first warp issues every
// copy from thread 256: it waits on the `empty` ring (mbarriers of 8 arrivals, one per
// consumer warp), arms the `full` ring and starts the TMA copies. The consumers wait for the
// full ring, run the wgmmas, and after the wait that retires the previous iteration's group
// each warp's lane 0 arrives on that slot's empty barrier. No barrier of the whole program
// after the split: the consumers synchronise among themselves on named barrier 1 (256 threads).
// With 4 consumer warps (one warpgroup, 256 threads: every thread may hold 255 registers)
// there is nothing to rebalance and no setmaxnreg. No spills either way.
// The persistent kernel (its default tile): the producer walks the program's tiles too, each
// tile's coordinates from the tile loop's slice, numbering iterations globally (tile index x
// trips + j) so it runs into the next tile's blocks while the consumers store a tile; the
// consumers free each tile's last slot after its final wgmma wait, and the mbarriers are
// invalidated after the tile loop.
// RUN: tilec --kernel=matmul_tma_f16 --spec=w8,s4,d16,d16,d16,p16,i16,i16,i16,c128,c256,c64,c8,c0,c1 --stage=opt | FileCheck %s --check-prefix=OPT
// RUN: tilec --kernel=matmul_tma_f16 --spec=w8,s4,d16,d16,d16,p16,i16,i16,i16,c128,c256,c64,c8,c0,c1 --stage=ptx | FileCheck %s
// RUN: tilec --kernel=matmul_tma_f16 --spec=w4,s4,d,d,d,p,i,i,i,c128,c128,c64,c8,c1,c1 --stage=ptx | FileCheck %s --check-prefix=W4
// RUN: tilec --kernel=matmul_tma_persistent_f16_out_f16 --spec=w8,s5,d16,d16,d16,p16,i16,i16,i16,c128,c128,c64,c8,c0,c1 --stage=opt | FileCheck %s --check-prefix=PERSISTENT
// RUN: %if ptxas %{ tilec --kernel=matmul_tma_persistent_f16_out_f16 --spec=w8,s5,d16,d16,d16,p16,i16,i16,i16,c128,c128,c64,c8,c0,c1 --stage=regs | FileCheck %s --check-prefix=REGS %}
// RUN: %if ptxas %{ tilec --kernel=matmul_tma_f16 --spec=w8,s4,d16,d16,d16,p16,i16,i16,i16,c128,c256,c64,c8,c0,c1 --stage=regs | FileCheck %s --check-prefix=REGS %}
// RUN: %if ptxas %{ tilec --kernel=matmul_tma_f16 --spec=w4,s4,d,d,d,p,i,i,i,c128,c128,c64,c8,c1,c1 --stage=regs | FileCheck %s --check-prefix=REGS %}

// OPT: tile.init_barriers %[[FULL:.*]] :
// OPT: tile.init_barriers %[[EMPTY:.*]] {count = 8 : i32}
// OPT-NEXT: tile.barrier
// OPT: tile.warp_specialize producer {
// OPT: scf.for
// OPT: tile.barrier_wait
// OPT: tile.barrier_expect %{{.*}}, %{{.*}} {bytes = 49152 : i32}
// OPT: tile.async_tma_load %arg0
// OPT: tile.async_tma_load %arg1
// OPT: } consumers {
// OPT-NOT: tile.async_tma_load
// OPT: scf.for
// OPT: tile.barrier_wait
// OPT-NOT: tile.barrier
// OPT: tile.warpgroup_dot %{{.*}} {pendings = 1 : i32}
// OPT: tile.barrier_arrive
// OPT: tile.warpgroup_dot_wait %{{.*}} {pendings = 0 : i32}
// OPT: tile.barrier
// OPT: tile.invalidate_barriers %[[FULL]]
// OPT: tile.invalidate_barriers %[[EMPTY]]
// OPT: tile.async_tma_store
// OPT: } {consumer_registers = 240 : i32, consumer_warps = 8 : i32, producer_registers = 24 : i32}

// CHECK: .target sm_90a
// CHECK-LABEL: .entry matmul_tma_f16
// CHECK: .maxntid 384, 1, 1
// CHECK: .minnctapersm 1
// CHECK: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 1;
// CHECK: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 8;
// CHECK: bar.sync 0;
// CHECK-NOT: bar.sync 0;
// The branches into the regions test the warp broadcast from lane 0 (warp-uniform to ptxas):
// CHECK: shfl.sync.idx.b32 %r[[WARP:[0-9]+]], %r{{[0-9]+}}, 0, 31, -1;
// CHECK-NEXT: setp.lt.u32 %p{{[0-9]+}}, %r[[WARP]], 8;
// CHECK: setmaxnreg.dec.sync.aligned.u32 24;
// CHECK: shfl.sync.idx.b32 %r[[WARP2:[0-9]+]], %r{{[0-9]+}}, 0, 31, -1;
// CHECK-NEXT: setp.gt.u32 %p{{[0-9]+}}, %r[[WARP2]], 8;
// CHECK: setp.eq.b32 %p{{[0-9]+}}, %r{{[0-9]+}}, 256;
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: mbarrier.arrive.expect_tx.shared.b64
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK: setmaxnreg.inc.sync.aligned.u32 240;
// CHECK-NOT: cp.async.bulk.tensor.2d.shared::cluster
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: mbarrier.arrive.shared.b64
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: bar.sync 1, 256;
// CHECK: mbarrier.inval.shared.b64
// CHECK-NOT: bar.sync 0;
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-NOT: bar.sync 0;

// W4: .maxntid 256, 1, 1
// W4-NOT: .minnctapersm
// W4-NOT: setmaxnreg
// W4: bar.sync 0;
// W4: shfl.sync.idx.b32 %r[[WARP:[0-9]+]], %r{{[0-9]+}}, 0, 31, -1;
// W4-NEXT: setp.gt.u32 %p{{[0-9]+}}, %r[[WARP]], 3;
// W4: shfl.sync.idx.b32 %r[[WARP2:[0-9]+]], %r{{[0-9]+}}, 0, 31, -1;
// W4-NEXT: setp.gt.u32 %p{{[0-9]+}}, %r[[WARP2]], 4;
// W4: setp.eq.b32 %p{{[0-9]+}}, %r{{[0-9]+}}, 128;
// W4: bar.sync 1, 128;
// W4-NOT: bar.sync 0;

// PERSISTENT: %[[TRIPS:.*]] = arith.divui
// PERSISTENT: tile.warp_specialize producer {
// PERSISTENT: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// PERSISTENT: arith.muli %{{.*}}, %[[TRIPS]]
// PERSISTENT: scf.for
// PERSISTENT: tile.barrier_wait
// PERSISTENT: tile.async_tma_load
// PERSISTENT: } consumers {
// PERSISTENT: scf.for
// PERSISTENT: arith.muli %{{.*}}, %[[TRIPS]]
// PERSISTENT: scf.for
// PERSISTENT: tile.barrier_arrive
// PERSISTENT: tile.warpgroup_dot_wait
// PERSISTENT-NOT: tile.store
// PERSISTENT: tile.barrier_arrive
// PERSISTENT: tile.async_tma_store
// PERSISTENT: tile.store
// PERSISTENT-NEXT: {{^ *}}}
// PERSISTENT-NEXT: {{^ *}}}
// PERSISTENT-NEXT: tile.barrier
// PERSISTENT-NEXT: tile.invalidate_barriers
// PERSISTENT-NEXT: tile.invalidate_barriers
// PERSISTENT: } {consumer_registers = 240 : i32, consumer_warps = 8 : i32, producer_registers = 24 : i32}

// REGS-NOT: {{C75(08|14|15|17)}}
// REGS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
