// The persistent descriptor matmul (MatmulTmaPersistent): a tile loop around the K loop. The
// rings and mbarriers are set up once, before the tile loop (init before it, invalidate after
// it), and the copies run ahead across tiles: at each tile's start the copies no earlier tile
// issued (predicated), in the K loop the refill of iteration j + ahead, of this tile or the next
// (its coordinates the tile loop's slice recomputed for the next tile). The epilogue (bias, relu,
// the cast to f16) runs in the accumulators' layout, only the 1-D bias row converted (once,
// before the branch below), and the C
// block leaves by a TMA store while the next tile's first copies are in flight, where the block
// starts inside C (else, masked stores of the f16 block). No spills.
// RUN: tilec --kernel=matmul_tma_persistent_f16_out_f16 --spec=w8,s5,d16,d16,d16,p16,i16,i16,i16,c128,c128,c64,c8,c2,c0 --stage=opt | FileCheck %s
// RUN: %if ptxas %{ tilec --kernel=matmul_tma_persistent_f16_out_f16 --spec=w8,s5,d16,d16,d16,p16,i16,i16,i16,c128,c128,c64,c8,c2,c0 --stage=regs | FileCheck %s --check-prefix=REGS %}

// CHECK: %[[A:.*]] = tile.local_alloc {{.*}} : () -> !tile.memdesc<5x128x64xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK: %[[B:.*]] = tile.local_alloc {{.*}} : () -> !tile.memdesc<5x64x128xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK: %[[BARS:.*]] = tile.local_alloc {{.*}} : () -> !tile.memdesc<5x1x1xi64
// CHECK: tile.init_barriers %[[BARS]]
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NOT: tile.init_barriers
// CHECK: tile.barrier_expect
// CHECK: tile.async_tma_load %arg0
// CHECK: tile.async_tma_load %arg1
// CHECK: scf.for
// CHECK: tile.barrier_wait
// CHECK: arith.select
// CHECK: tile.barrier_expect
// CHECK: tile.async_tma_load %arg0
// CHECK: tile.async_tma_load %arg1
// CHECK: tile.warpgroup_dot {{.*}} {pendings = 1 : i32}
// CHECK: scf.yield
// CHECK: tile.warpgroup_dot_wait {{.*}} {pendings = 0 : i32}
// CHECK-NOT: tile.convert_layout {{.*}} tensor<128x128xf32
// CHECK: tile.convert_layout {{.*}} : tensor<128xf32, #blocked{{[0-9]*}}> -> tensor<128xf32, #slice>
// CHECK-NOT: tile.convert_layout {{.*}} tensor<128x128xf32
// CHECK: scf.if
// CHECK-NOT: tile.convert_layout {{.*}} tensor<128x128xf32
// CHECK: tile.local_alloc %{{.*}} : (tensor<128x128xf16, #mma>) -> !tile.memdesc<128x128xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK: tile.async_tma_store
// CHECK-NEXT: } else {
// CHECK-NOT: tile.convert_layout {{.*}} tensor<128x128xf32
// CHECK: tile.convert_layout %{{.*}} : tensor<128x128xf16, #mma> -> tensor<128x128xf16, #blocked{{[0-9]*}}>
// CHECK-NEXT: tile.store {{.*}}
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.invalidate_barriers %[[BARS]]
// REGS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
