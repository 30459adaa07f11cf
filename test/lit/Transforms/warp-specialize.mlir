// RUN: tile-opt %s -split-input-file --tile-warp-specialize | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-warp-specialize=num-stages=2 | FileCheck %s --check-prefix=S2

// A TMA-fed wgmma K loop marked tile.warp_specialize, at the kernel's top level after only
// register work: split into a producer region that issues the copies and a consumers region
// that runs the loop without them. S slots (the kernel's tile.num_stages = 4); the `full`
// ring expects one arrival (the producer's expect), the `empty` ring one per consumer warp.
// CHECK-LABEL: func.func @warp_specialized
// CHECK:      %[[RA:.*]] = tile.local_alloc : () -> !tile.memdesc<4x64x32xf16, #tile.nvmma_shared<swizzle = 64>>
// CHECK-NEXT: %[[RB:.*]] = tile.local_alloc : () -> !tile.memdesc<4x32x64xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK-NEXT: %[[FULL:.*]] = tile.local_alloc : () -> !tile.memdesc<4x1x1xi64
// CHECK-NEXT: %[[EMPTY:.*]] = tile.local_alloc : () -> !tile.memdesc<4x1x1xi64
// CHECK-NEXT: tile.init_barriers %[[FULL]] :
// CHECK-NEXT: tile.init_barriers %[[EMPTY]] {count = 4 : i32}
// CHECK-NEXT: tile.barrier
// The producer: wait until the slot is free, announce its bytes (64x32 + 32x64 f16), copy.
// CHECK:      tile.warp_specialize producer {
// CHECK:        scf.for
// CHECK:          %[[ES:.*]] = tile.memdesc_index %[[EMPTY]]
// CHECK-NEXT:     tile.barrier_wait %[[ES]]
// CHECK:          %[[FS:.*]] = tile.memdesc_index %[[FULL]]
// CHECK-NEXT:     tile.barrier_expect %[[FS]], %{{.*}} {bytes = 8192 : i32}
// CHECK:          tile.async_tma_load %arg0[%{{.*}}, %{{.*}}] -> %{{.*}}, %[[FS]], %{{.*}}
// CHECK:          tile.async_tma_load %arg1[%{{.*}}, %{{.*}}] -> %{{.*}}, %[[FS]], %{{.*}}
// CHECK-NOT:      tile.warpgroup_dot
// The consumers: wait for the slot's copies, one wgmma group in flight, free the previous
// iteration's slot; after the last group retired the mbarriers go, then the epilogue.
// CHECK:      } consumers {
// CHECK:        scf.for
// CHECK-NOT:      tile.async_tma_load
// CHECK:          %[[FW:.*]] = tile.memdesc_index %[[FULL]]
// CHECK-NEXT:     tile.barrier_wait %[[FW]]
// CHECK:          tile.warpgroup_dot {{.*}} {pendings = 1 : i32}
// CHECK:          %[[PREV:.*]] = tile.memdesc_index %[[EMPTY]]
// CHECK-NEXT:     tile.barrier_arrive %[[PREV]]
// CHECK:        } {tile.warp_specialize}
// CHECK-NEXT:   %[[ACC:.*]] = tile.warpgroup_dot_wait {{.*}} {pendings = 0 : i32}
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.invalidate_barriers %[[FULL]]
// CHECK-NEXT:   tile.invalidate_barriers %[[EMPTY]]
// CHECK-NEXT:   tile.store %{{.*}}, %[[ACC]]
// Four consumer warps: the launch's even share already gives each thread 255 registers, so
// no setmaxnreg counts.
// CHECK-NEXT: } {consumer_warps = 4 : i32}
// With two stages the dots cannot stay in flight: each iteration waits for its slot just
// before its dot, which waits as it is issued, and frees the slot right after it. One consumer
// warpgroup takes no turns.
// S2-LABEL: func.func @warp_specialized
// S2:      tile.warp_specialize producer {
// S2:      } consumers {
// S2-NOT:    tile.turn
// S2:        scf.for
// S2:          %[[SLOT:.*]] = arith.remui %{{.*}}, %c2_i32
// S2:          tile.barrier_wait
// S2-NEXT:     tile.warpgroup_dot %{{[^{]*}} : <64x32xf16
// S2-NEXT:     %[[FREE:.*]] = tile.memdesc_index %{{.*}}[%[[SLOT]]]
// S2-NEXT:     tile.barrier_arrive %[[FREE]], %true
// S2-NEXT:     scf.yield
// S2:        } {tile.warp_specialize}
// S2-NEXT:   tile.barrier

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
module attributes {tile.target = "sm_90a"} {
  func.func @warp_specialized(%a: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32}, %b: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32},
                              %pa: tensor<64x32x!tile.ptr<f16>, #blocked>, %pb: tensor<32x64x!tile.ptr<f16>, #blocked>,
                              %pc: tensor<64x64x!tile.ptr<f32>, #mma>, %row: i32, %k: i32) attributes {tile.kernel, tile.num_stages = 4 : i32, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %true = arith.constant dense<true> : tensor<64x32xi1, #blocked>
    %trueb = arith.constant dense<true> : tensor<32x64xi1, #blocked>
    %za = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #blocked>
    %zb = arith.constant dense<0.000000e+00> : tensor<32x64xf16, #blocked>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %r = arith.muli %row, %c32 : i32
    %acc = scf.for %kk = %c0 to %k step %c32 iter_args(%acc1 = %acc0) -> (tensor<64x64xf32, #mma>) : i32 {
      %x = tile.load %pa, %true, %za box %a[%r, %kk] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi1, #blocked>, tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked>
      %y = tile.load %pb, %trueb, %zb box %b[%kk, %c0] of !tile.tensordesc<f16, 2> : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi1, #blocked>, tensor<32x64xf16, #blocked> -> tensor<32x64xf16, #blocked>
      %ma = tile.local_alloc %x : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
      %mb = tile.local_alloc %y : (tensor<32x64xf16, #blocked>) -> !tile.memdesc<32x64xf16, #tile.nvmma_shared<swizzle = 128>>
      %d = tile.warpgroup_dot %ma, %mb, %acc1 : <64x32xf16, #tile.nvmma_shared<swizzle = 64>> * <32x64xf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    } {tile.warp_specialize}
    tile.store %pc, %acc : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
    return
  }
}

// -----

// A loop not marked is left alone. A store before a marked loop is the consumers' (the
// producer needs only the loop's bounds and box offsets): it moves into their region, after
// the split. A marked loop whose bound comes out of a branch is left alone: the producer
// would have to run the branch.
// CHECK-LABEL: func.func @not_marked
// CHECK-NOT:   tile.warp_specialize producer
// CHECK:       tile.load {{.*}} box
// CHECK-LABEL: func.func @bound_from_a_branch
// CHECK-NOT:   tile.warp_specialize producer
// CHECK:       tile.load {{.*}} box
// CHECK-NOT:   tile.warp_specialize producer
// CHECK-LABEL: func.func @store_before
// CHECK:       tile.warp_specialize producer {
// CHECK-NOT:     tile.store
// CHECK:       } consumers {
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
// CHECK-NEXT:    tile.store %arg4, %[[ZERO]]

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
module attributes {tile.target = "sm_90a"} {
  func.func @not_marked(%a: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32}, %b: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32},
                        %pa: tensor<64x32x!tile.ptr<f16>, #blocked>, %pb: tensor<32x64x!tile.ptr<f16>, #blocked>,
                        %pc: tensor<64x64x!tile.ptr<f32>, #mma>, %row: i32, %k: i32) attributes {tile.kernel, tile.num_stages = 4 : i32, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %true = arith.constant dense<true> : tensor<64x32xi1, #blocked>
    %trueb = arith.constant dense<true> : tensor<32x64xi1, #blocked>
    %za = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #blocked>
    %zb = arith.constant dense<0.000000e+00> : tensor<32x64xf16, #blocked>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %r = arith.muli %row, %c32 : i32
    %acc = scf.for %kk = %c0 to %k step %c32 iter_args(%acc1 = %acc0) -> (tensor<64x64xf32, #mma>) : i32 {
      %x = tile.load %pa, %true, %za box %a[%r, %kk] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi1, #blocked>, tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked>
      %y = tile.load %pb, %trueb, %zb box %b[%kk, %c0] of !tile.tensordesc<f16, 2> : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi1, #blocked>, tensor<32x64xf16, #blocked> -> tensor<32x64xf16, #blocked>
      %ma = tile.local_alloc %x : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
      %mb = tile.local_alloc %y : (tensor<32x64xf16, #blocked>) -> !tile.memdesc<32x64xf16, #tile.nvmma_shared<swizzle = 128>>
      %d = tile.warpgroup_dot %ma, %mb, %acc1 : <64x32xf16, #tile.nvmma_shared<swizzle = 64>> * <32x64xf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    tile.store %pc, %acc : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
    return
  }

  func.func @bound_from_a_branch(%a: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32}, %b: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32},
                        %pa: tensor<64x32x!tile.ptr<f16>, #blocked>, %pb: tensor<32x64x!tile.ptr<f16>, #blocked>,
                        %pc: tensor<64x64x!tile.ptr<f32>, #mma>, %row: i32, %k: i32, %short: i1) attributes {tile.kernel, tile.num_stages = 4 : i32, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %true = arith.constant dense<true> : tensor<64x32xi1, #blocked>
    %trueb = arith.constant dense<true> : tensor<32x64xi1, #blocked>
    %za = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #blocked>
    %zb = arith.constant dense<0.000000e+00> : tensor<32x64xf16, #blocked>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %r = arith.muli %row, %c32 : i32
    %hi = scf.if %short -> (i32) {
      scf.yield %c32 : i32
    } else {
      scf.yield %k : i32
    }
    %acc = scf.for %kk = %c0 to %hi step %c32 iter_args(%acc1 = %acc0) -> (tensor<64x64xf32, #mma>) : i32 {
      %x = tile.load %pa, %true, %za box %a[%r, %kk] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi1, #blocked>, tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked>
      %y = tile.load %pb, %trueb, %zb box %b[%kk, %c0] of !tile.tensordesc<f16, 2> : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi1, #blocked>, tensor<32x64xf16, #blocked> -> tensor<32x64xf16, #blocked>
      %ma = tile.local_alloc %x : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
      %mb = tile.local_alloc %y : (tensor<32x64xf16, #blocked>) -> !tile.memdesc<32x64xf16, #tile.nvmma_shared<swizzle = 128>>
      %d = tile.warpgroup_dot %ma, %mb, %acc1 : <64x32xf16, #tile.nvmma_shared<swizzle = 64>> * <32x64xf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    } {tile.warp_specialize}
    tile.store %pc, %acc : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
    return
  }

  func.func @store_before(%a: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32}, %b: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32},
                           %pa: tensor<64x32x!tile.ptr<f16>, #blocked>, %pb: tensor<32x64x!tile.ptr<f16>, #blocked>,
                           %pc: tensor<64x64x!tile.ptr<f32>, #mma>, %row: i32, %k: i32) attributes {tile.kernel, tile.num_stages = 4 : i32, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %true = arith.constant dense<true> : tensor<64x32xi1, #blocked>
    %trueb = arith.constant dense<true> : tensor<32x64xi1, #blocked>
    %za = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #blocked>
    %zb = arith.constant dense<0.000000e+00> : tensor<32x64xf16, #blocked>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    tile.store %pc, %acc0 : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
    %r = arith.muli %row, %c32 : i32
    %acc = scf.for %kk = %c0 to %k step %c32 iter_args(%acc1 = %acc0) -> (tensor<64x64xf32, #mma>) : i32 {
      %x = tile.load %pa, %true, %za box %a[%r, %kk] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi1, #blocked>, tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked>
      %y = tile.load %pb, %trueb, %zb box %b[%kk, %c0] of !tile.tensordesc<f16, 2> : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi1, #blocked>, tensor<32x64xf16, #blocked> -> tensor<32x64xf16, #blocked>
      %ma = tile.local_alloc %x : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
      %mb = tile.local_alloc %y : (tensor<32x64xf16, #blocked>) -> !tile.memdesc<32x64xf16, #tile.nvmma_shared<swizzle = 128>>
      %d = tile.warpgroup_dot %ma, %mb, %acc1 : <64x32xf16, #tile.nvmma_shared<swizzle = 64>> * <32x64xf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    } {tile.warp_specialize}
    tile.store %pc, %acc : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
    return
  }
}

// -----

// Two marked loops one after the other (attention's unmasked key blocks, then the masked
// ones) share one ring and one producer: the second's iterations number on from the first's
// trip count, so its copies take the slots and phases that follow. Their dots wait within the
// iteration (two stages), so each iteration frees its own slot once its dot is done; with two consumer warpgroups
// they take turns at the dots: the second warpgroup passes once before the loops (unless they
// make no turns at all), each dot is issued between a turn_wait and a turn_pass and waited for
// after, and the pass after the last dot of the loops' last iteration (counted over both loops)
// is skipped, so every pass is taken. The second loop's bound, computed between the loops,
// moves before the first, where the producer sees it too.
// CHECK-LABEL: func.func @two_loops_one_ring
// CHECK:      %[[END:.*]] = arith.addi %arg7, %c32_i32 : i32
// CHECK:      %[[RA:.*]] = tile.local_alloc : () -> !tile.memdesc<2x128x32xf16
// CHECK:      %[[TRIPS:.*]] = arith.divui
// CHECK-NEXT: %[[SECOND:.*]] = arith.addi %{{.*}}, %[[TRIPS]] : i32
// CHECK:      %[[TOTAL:.*]] = arith.addi %[[SECOND]], %{{.*}} : i32
// CHECK-NEXT: tile.warp_specialize producer {
// CHECK:        scf.for
// CHECK-COUNT-2:  tile.async_tma_load
// CHECK:        scf.for %[[IV:.*]] = %arg6 to %[[END]]
// CHECK:          %[[J:.*]] = arith.divui
// CHECK-NEXT:     %[[G:.*]] = arith.addi %[[SECOND]], %[[J]] : i32
// CHECK:          arith.remui %[[G]], %c2_i32
// CHECK-COUNT-2:  tile.async_tma_load
// CHECK:      } consumers {
// CHECK:        %[[NONE:.*]] = arith.cmpi eq, %[[TOTAL]], %c0
// CHECK-NEXT:   tile.turn_pass %[[NONE]] {groups = 2 : i32, only = 1 : i32}
// CHECK:        %[[LAST:.*]] = arith.subi %[[TOTAL]], %c1
// CHECK-NEXT:   scf.for
// CHECK:          %[[G1:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK:          tile.turn_wait {groups = 2 : i32}
// CHECK-NEXT:     %[[D:.*]] = tile.warpgroup_dot {{.*}} {pendings = 1 : i32}
// CHECK-NEXT:     %[[ISLAST:.*]] = arith.cmpi eq, %[[G1]], %[[LAST]] : i32
// CHECK-NEXT:     tile.turn_pass %[[ISLAST]] {groups = 2 : i32}
// CHECK-NEXT:     tile.memdesc_index
// CHECK-NEXT:     tile.warpgroup_dot_wait %[[D]] {pendings = 0 : i32}
// CHECK-NEXT:     tile.barrier_arrive
// CHECK:        scf.for
// CHECK:          tile.turn_wait {groups = 2 : i32}
// CHECK:          tile.turn_pass %{{.*}} {groups = 2 : i32}
// CHECK:          tile.barrier_arrive
// CHECK:        tile.invalidate_barriers
// CHECK-NEXT:   tile.invalidate_barriers
// CHECK-NOT:    tile.turn
// CHECK:      } {consumer_registers = 240 : i32, consumer_warps = 8 : i32, producer_registers = 24 : i32}

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
module attributes {tile.target = "sm_90a"} {
  func.func @two_loops_one_ring(%a: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32}, %b: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32},
                                %pa: tensor<128x32x!tile.ptr<f16>, #blocked>, %pb: tensor<32x64x!tile.ptr<f16>, #blocked>,
                                %pc: tensor<128x64x!tile.ptr<f32>, #mma>, %row: i32, %mid: i32, %k: i32) attributes {tile.kernel, tile.num_stages = 2 : i32, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %true = arith.constant dense<true> : tensor<128x32xi1, #blocked>
    %trueb = arith.constant dense<true> : tensor<32x64xi1, #blocked>
    %za = arith.constant dense<0.000000e+00> : tensor<128x32xf16, #blocked>
    %zb = arith.constant dense<0.000000e+00> : tensor<32x64xf16, #blocked>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
    %r = arith.muli %row, %c32 : i32
    %acc1 = scf.for %kk = %c0 to %mid step %c32 iter_args(%acc = %acc0) -> (tensor<128x64xf32, #mma>) : i32 {
      %x = tile.load %pa, %true, %za box %a[%r, %kk] of !tile.tensordesc<f16, 2> : tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<128x32xi1, #blocked>, tensor<128x32xf16, #blocked> -> tensor<128x32xf16, #blocked>
      %y = tile.load %pb, %trueb, %zb box %b[%kk, %c0] of !tile.tensordesc<f16, 2> : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi1, #blocked>, tensor<32x64xf16, #blocked> -> tensor<32x64xf16, #blocked>
      %ma = tile.local_alloc %x : (tensor<128x32xf16, #blocked>) -> !tile.memdesc<128x32xf16, #tile.nvmma_shared<swizzle = 64>>
      %mb = tile.local_alloc %y : (tensor<32x64xf16, #blocked>) -> !tile.memdesc<32x64xf16, #tile.nvmma_shared<swizzle = 128>>
      %d = tile.warpgroup_dot %ma, %mb, %acc : <128x32xf16, #tile.nvmma_shared<swizzle = 64>> * <32x64xf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<128x64xf32, #mma>
      scf.yield %d : tensor<128x64xf32, #mma>
    } {tile.warp_specialize}
    %end = arith.addi %k, %c32 : i32
    %acc2 = scf.for %kk = %mid to %end step %c32 iter_args(%acc = %acc1) -> (tensor<128x64xf32, #mma>) : i32 {
      %x = tile.load %pa, %true, %za box %a[%r, %kk] of !tile.tensordesc<f16, 2> : tensor<128x32x!tile.ptr<f16>, #blocked>, tensor<128x32xi1, #blocked>, tensor<128x32xf16, #blocked> -> tensor<128x32xf16, #blocked>
      %y = tile.load %pb, %trueb, %zb box %b[%kk, %c0] of !tile.tensordesc<f16, 2> : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi1, #blocked>, tensor<32x64xf16, #blocked> -> tensor<32x64xf16, #blocked>
      %ma = tile.local_alloc %x : (tensor<128x32xf16, #blocked>) -> !tile.memdesc<128x32xf16, #tile.nvmma_shared<swizzle = 64>>
      %mb = tile.local_alloc %y : (tensor<32x64xf16, #blocked>) -> !tile.memdesc<32x64xf16, #tile.nvmma_shared<swizzle = 128>>
      %d = tile.warpgroup_dot %ma, %mb, %acc : <128x32xf16, #tile.nvmma_shared<swizzle = 64>> * <32x64xf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<128x64xf32, #mma>
      scf.yield %d : tensor<128x64xf32, #mma>
    } {tile.warp_specialize}
    tile.store %pc, %acc2 : tensor<128x64x!tile.ptr<f32>, #mma>, tensor<128x64xf32, #mma>
    return
  }
}

// -----

// LoopOptions::overlapIterations (FlashAttention-3's intra-warpgroup overlap) on a loop whose
// second dot reads what the register work makes of the first's result, with one consumer
// warpgroup (no turns). K and V, first read by different dots, get a pipeline each (their own
// full and empty mbarriers): the producer waits for K's free slot and copies K, then V's; the
// consumers wait for K's copy just before S and free K's slot once S is done, wait for V's just
// before P V and free it after. The loop runs under scf.if (it has an iteration); the prologue
// issues the first dot of iteration 0 and computes on it; the kernel loop issues the next first
// dot, then this second dot on the carried P, slot and phase (pendings = 2: both in flight),
// waits for the first alone (pendings = 1), frees K, computes, then waits for the second and
// frees V; the epilogue issues the last second dot and frees the last V slot. An iteration
// holds one slot of each pipeline, so two stages (S2) suffice.
// CHECK-LABEL: func.func @overlapped
// S2-LABEL:    func.func @overlapped
// S2:          } consumers {
// S2:            scf.if
// S2:              tile.warpgroup_dot {{.*}} {pendings = 2 : i32}
// CHECK:      %[[KF:.*]] = tile.local_alloc : () -> !tile.memdesc<3x1x1xi64
// CHECK-NEXT: %[[KE:.*]] = tile.local_alloc : () -> !tile.memdesc<3x1x1xi64
// CHECK-NEXT: tile.init_barriers %[[KF]] :
// CHECK-NEXT: tile.init_barriers %[[KE]] {count = 4 : i32}
// CHECK-NEXT: %[[VF:.*]] = tile.local_alloc : () -> !tile.memdesc<3x1x1xi64
// CHECK-NEXT: %[[VE:.*]] = tile.local_alloc : () -> !tile.memdesc<3x1x1xi64
// CHECK:      tile.warp_specialize producer {
// CHECK:          %[[KEP:.*]] = tile.memdesc_index %[[KE]]
// CHECK-NEXT:     tile.barrier_wait %[[KEP]]
// CHECK-NEXT:     %[[KFP:.*]] = tile.memdesc_index %[[KF]]
// CHECK-NEXT:     tile.barrier_expect %[[KFP]], %{{.*}} {bytes = 4096 : i32}
// CHECK-NEXT:     %[[KB:.*]] = tile.memdesc_index
// CHECK-NEXT:     tile.async_tma_load %arg0[{{.*}}] -> %[[KB]], %[[KFP]]
// CHECK:          %[[VEP:.*]] = tile.memdesc_index %[[VE]]
// CHECK-NEXT:     tile.barrier_wait %[[VEP]]
// CHECK-NEXT:     %[[VFP:.*]] = tile.memdesc_index %[[VF]]
// CHECK-NEXT:     tile.barrier_expect %[[VFP]], %{{.*}} {bytes = 4096 : i32}
// CHECK-NEXT:     %[[VB:.*]] = tile.memdesc_index
// CHECK-NEXT:     tile.async_tma_load %arg1[{{.*}}] -> %[[VB]], %[[VFP]]
// CHECK:      } consumers {
// CHECK:        %[[ANY:.*]] = arith.cmpi slt, %c0_i32, %arg5 : i32
// CHECK-NEXT:   scf.if %[[ANY]] -> (tensor<64x32xf32, #mma>) {
// CHECK:          tile.memdesc_index %[[KF]]
// CHECK-NEXT:     tile.barrier_wait
// CHECK-NEXT:     %[[S0:.*]] = tile.warpgroup_dot {{.*}} {pendings = 1 : i32} : <64x32xf16
// CHECK-NEXT:     tile.warpgroup_dot_wait %[[S0]] {pendings = 0 : i32}
// CHECK-NEXT:     tile.memdesc_index %[[KE]]
// CHECK-NEXT:     tile.barrier_arrive
// CHECK:          %[[P0:.*]] = tile.convert_layout
// CHECK:          scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[SLOT:.*]] = %{{.*}}, %[[PHASE:.*]] = %{{.*}}, %[[P:.*]] = %[[P0]]) -> (tensor<64x32xf32, #mma>, i32, i32, tensor<64x64xf16, #dot_op>)
// CHECK:            %[[KSLOT:.*]] = arith.remui
// CHECK:            %[[KFK:.*]] = tile.memdesc_index %[[KF]][%[[KSLOT]]]
// CHECK-NEXT:       tile.barrier_wait %[[KFK]]
// CHECK-NEXT:       %[[S:.*]] = tile.warpgroup_dot {{.*}} {pendings = 1 : i32} : <64x32xf16
// CHECK-NEXT:       %[[V:.*]] = tile.memdesc_index %{{.*}}[%[[SLOT]]]
// CHECK-NEXT:       %[[SCALED:.*]] = arith.mulf %[[ACC]], %{{.*}}
// CHECK-NEXT:       %[[VFK:.*]] = tile.memdesc_index %[[VF]][%[[SLOT]]]
// CHECK-NEXT:       tile.barrier_wait %[[VFK]], %[[PHASE]]
// CHECK-NEXT:       %[[O:.*]] = tile.warpgroup_dot %[[P]], %[[V]], %[[SCALED]] {pendings = 2 : i32}
// CHECK-NEXT:       tile.warpgroup_dot_wait %[[S]] {pendings = 1 : i32}
// CHECK-NEXT:       %[[KEK:.*]] = tile.memdesc_index %[[KE]][%[[KSLOT]]]
// CHECK-NEXT:       tile.barrier_arrive %[[KEK]]
// CHECK-NEXT:       math.exp2
// CHECK-NEXT:       arith.truncf
// CHECK-NEXT:       tile.convert_layout
// CHECK-NEXT:       tile.warpgroup_dot_wait %[[O]] {pendings = 0 : i32}
// CHECK-NEXT:       %[[VEK:.*]] = tile.memdesc_index %[[VE]][%[[SLOT]]]
// CHECK-NEXT:       tile.barrier_arrive %[[VEK]]
// CHECK-NEXT:       scf.yield
// CHECK-NEXT:     } {tile.overlap_iterations, tile.warp_specialize}
// CHECK:          tile.memdesc_index %[[VF]]
// CHECK-NEXT:     tile.barrier_wait
// CHECK-NEXT:     %[[OL:.*]] = tile.warpgroup_dot {{.*}} {pendings = 1 : i32} : tensor<64x64xf16, #dot_op>
// CHECK-NEXT:     %[[DONE:.*]] = tile.warpgroup_dot_wait %[[OL]] {pendings = 0 : i32}
// CHECK-NEXT:     tile.memdesc_index %[[VE]]
// CHECK-NEXT:     tile.barrier_arrive
// CHECK-NEXT:     scf.yield %[[DONE]]
// CHECK-NEXT:   } else {
// CHECK-NEXT:     scf.yield
// CHECK-NEXT:   }
// CHECK:        tile.invalidate_barriers

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma>
module attributes {tile.target = "sm_90a"} {
  func.func @overlapped(%k: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32}, %v: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32},
                        %q: tensor<64x32xf16, #blocked>, %pk: tensor<64x32x!tile.ptr<f16>, #blocked>,
                        %po: tensor<64x32x!tile.ptr<f32>, #mma>, %n: i32) attributes {tile.kernel, tile.num_stages = 3 : i32, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %true = arith.constant dense<true> : tensor<64x32xi1, #blocked>
    %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #blocked>
    %zs = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #mma>
    %half = arith.constant dense<5.000000e-01> : tensor<64x32xf32, #mma>
    %qb = tile.local_alloc %q : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
    %out = scf.for %n0 = %c0 to %n step %c64 iter_args(%acc = %acc0) -> (tensor<64x32xf32, #mma>) : i32 {
      %kt = tile.load %pk, %true, %z box %k[%n0, %c0] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi1, #blocked>, tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked>
      %vt = tile.load %pk, %true, %z box %v[%n0, %c0] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi1, #blocked>, tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked>
      %kb = tile.local_alloc %kt : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
      %vb = tile.local_alloc %vt : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
      %kT = tile.memdesc_trans %kb : <64x32xf16, #tile.nvmma_shared<swizzle = 64>> -> <32x64xf16, #tile.nvmma_shared<swizzle = 64, transposed = true>>
      %s = tile.warpgroup_dot %qb, %kT, %zs : <64x32xf16, #tile.nvmma_shared<swizzle = 64>> * <32x64xf16, #tile.nvmma_shared<swizzle = 64, transposed = true>> -> tensor<64x64xf32, #mma>
      %e = math.exp2 %s : tensor<64x64xf32, #mma>
      %h = arith.truncf %e : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
      %p = tile.convert_layout %h : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_op>
      %scaled = arith.mulf %acc, %half : tensor<64x32xf32, #mma>
      %d = tile.warpgroup_dot %p, %vb, %scaled : tensor<64x64xf16, #dot_op> * <64x32xf16, #tile.nvmma_shared<swizzle = 64>> -> tensor<64x32xf32, #mma>
      scf.yield %d : tensor<64x32xf32, #mma>
    } {tile.overlap_iterations, tile.warp_specialize}
    tile.store %po, %out : tensor<64x32x!tile.ptr<f32>, #mma>, tensor<64x32xf32, #mma>
    return
  }
}

// -----

// Where both dots read the same buffer (here the second reads K, as P K), its slot is held from
// the first dot of an iteration to the second dot of the next, so an overlapped iteration holds
// two slots of its one pipeline: the overlap needs three stages. With two (S2) the loop stays as
// it was.
// CHECK-LABEL: func.func @one_pipeline_both_dots
// CHECK:      } consumers {
// CHECK:        scf.if
// CHECK:            tile.warpgroup_dot {{.*}} {pendings = 2 : i32}
// S2-LABEL:    func.func @one_pipeline_both_dots
// S2:          } consumers {
// S2-NOT:        scf.if
// S2:            } {tile.overlap_iterations, tile.warp_specialize}

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma>
module attributes {tile.target = "sm_90a"} {
  func.func @one_pipeline_both_dots(%k: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32},
                        %q: tensor<64x32xf16, #blocked>, %pk: tensor<64x32x!tile.ptr<f16>, #blocked>,
                        %po: tensor<64x32x!tile.ptr<f32>, #mma>, %n: i32) attributes {tile.kernel, tile.num_stages = 3 : i32, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %true = arith.constant dense<true> : tensor<64x32xi1, #blocked>
    %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #blocked>
    %zs = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #mma>
    %qb = tile.local_alloc %q : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
    %out = scf.for %n0 = %c0 to %n step %c64 iter_args(%acc = %acc0) -> (tensor<64x32xf32, #mma>) : i32 {
      %kt = tile.load %pk, %true, %z box %k[%n0, %c0] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi1, #blocked>, tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked>
      %kb = tile.local_alloc %kt : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
      %kT = tile.memdesc_trans %kb : <64x32xf16, #tile.nvmma_shared<swizzle = 64>> -> <32x64xf16, #tile.nvmma_shared<swizzle = 64, transposed = true>>
      %s = tile.warpgroup_dot %qb, %kT, %zs : <64x32xf16, #tile.nvmma_shared<swizzle = 64>> * <32x64xf16, #tile.nvmma_shared<swizzle = 64, transposed = true>> -> tensor<64x64xf32, #mma>
      %e = math.exp2 %s : tensor<64x64xf32, #mma>
      %h = arith.truncf %e : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
      %p = tile.convert_layout %h : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_op>
      %d = tile.warpgroup_dot %p, %kb, %acc : tensor<64x64xf16, #dot_op> * <64x32xf16, #tile.nvmma_shared<swizzle = 64>> -> tensor<64x32xf32, #mma>
      scf.yield %d : tensor<64x32xf32, #mma>
    } {tile.overlap_iterations, tile.warp_specialize}
    tile.store %po, %out : tensor<64x32x!tile.ptr<f32>, #mma>, tensor<64x32xf32, #mma>
    return
  }
}

// -----

// A second dot that does not read the first's result is no overlap's: the loop stays as
// tile-warp-specialize makes it (each dot waited for as it is issued; no scf.if).
// CHECK-LABEL: func.func @independent_dots
// CHECK:      } consumers {
// CHECK-NOT:    scf.if
// CHECK:        scf.for
// CHECK-NOT:      pendings
// CHECK:          tile.warpgroup_dot %{{[0-9]+}}, %{{[0-9]+}}, %arg{{[0-9]+}} : <64x32xf16
// CHECK-NOT:      pendings
// CHECK:          tile.warpgroup_dot %arg{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : tensor<64x64xf16, #dot_op>
// CHECK-NOT:      pendings
// CHECK:        } {tile.overlap_iterations, tile.warp_specialize}

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma>
module attributes {tile.target = "sm_90a"} {
  func.func @independent_dots(%k: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32}, %v: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32},
                        %q: tensor<64x32xf16, #blocked>, %pk: tensor<64x32x!tile.ptr<f16>, #blocked>,
                        %po: tensor<64x32x!tile.ptr<f32>, #mma>, %n: i32, %pa: tensor<64x64xf16, #dot_op>) attributes {tile.kernel, tile.num_stages = 3 : i32, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %true = arith.constant dense<true> : tensor<64x32xi1, #blocked>
    %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #blocked>
    %zs = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #mma>
    %half = arith.constant dense<5.000000e-01> : tensor<64x32xf32, #mma>
    %qb = tile.local_alloc %q : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
    %out:2 = scf.for %n0 = %c0 to %n step %c64 iter_args(%acc = %acc0, %sacc = %zs) -> (tensor<64x32xf32, #mma>, tensor<64x64xf32, #mma>) : i32 {
      %kt = tile.load %pk, %true, %z box %k[%n0, %c0] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi1, #blocked>, tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked>
      %vt = tile.load %pk, %true, %z box %v[%n0, %c0] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi1, #blocked>, tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked>
      %kb = tile.local_alloc %kt : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
      %vb = tile.local_alloc %vt : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
      %kT = tile.memdesc_trans %kb : <64x32xf16, #tile.nvmma_shared<swizzle = 64>> -> <32x64xf16, #tile.nvmma_shared<swizzle = 64, transposed = true>>
      %s = tile.warpgroup_dot %qb, %kT, %sacc : <64x32xf16, #tile.nvmma_shared<swizzle = 64>> * <32x64xf16, #tile.nvmma_shared<swizzle = 64, transposed = true>> -> tensor<64x64xf32, #mma>
      %scaled = arith.mulf %acc, %half : tensor<64x32xf32, #mma>
      %d = tile.warpgroup_dot %pa, %vb, %scaled : tensor<64x64xf16, #dot_op> * <64x32xf16, #tile.nvmma_shared<swizzle = 64>> -> tensor<64x32xf32, #mma>
      scf.yield %d, %s : tensor<64x32xf32, #mma>, tensor<64x64xf32, #mma>
    } {tile.overlap_iterations, tile.warp_specialize}
    tile.store %po, %out#0 : tensor<64x32x!tile.ptr<f32>, #mma>, tensor<64x32xf32, #mma>
    return
  }
}

// -----

// Two consumer warpgroups; two independent dots issued back to back from buffers (the
// attention backward's S = Q Kᵀ and dP = dO Vᵀ, K and V on pipelines of their own) share one
// turn: both are issued between one turn_wait and turn_pass, V's mbarrier wait between them,
// so they are in flight together; the first is waited for right after the pass (wait_group
// 1) and K's slot freed then, the second waited for only before V's slot is freed.
// CHECK-LABEL: func.func @independent_dots_one_turn
// CHECK:      } consumers {
// CHECK:        scf.for
// CHECK:          tile.turn_wait {groups = 2 : i32}
// CHECK-NEXT:     %[[S:.*]] = tile.warpgroup_dot {{.*}} {pendings = 1 : i32}
// CHECK-NOT:      tile.turn
// CHECK-NOT:      tile.barrier_arrive
// CHECK:          tile.barrier_wait
// CHECK-NOT:      tile.turn
// CHECK:          %[[DP:.*]] = tile.warpgroup_dot {{.*}} {pendings = 1 : i32}
// CHECK-NEXT:     arith.cmpi
// CHECK-NEXT:     tile.turn_pass %{{.*}} {groups = 2 : i32}
// CHECK-NEXT:     %[[SDONE:.*]] = tile.warpgroup_dot_wait %[[S]] {pendings = 1 : i32}
// CHECK-NEXT:     tile.barrier_arrive
// CHECK:          %[[DPDONE:.*]] = tile.warpgroup_dot_wait %[[DP]] {pendings = 0 : i32}
// CHECK-NEXT:     tile.barrier_arrive
// CHECK-NEXT:     arith.addf %[[SDONE]], %[[DPDONE]]
// CHECK-NOT:      tile.turn

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
module attributes {tile.target = "sm_90a"} {
  func.func @independent_dots_one_turn(%k: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32}, %v: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32},
                        %q: tensor<128x32xf16, #blocked>, %pk: tensor<64x32x!tile.ptr<f16>, #blocked>,
                        %po: tensor<128x64x!tile.ptr<f32>, #mma>, %n: i32) attributes {tile.kernel, tile.num_stages = 2 : i32, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %true = arith.constant dense<true> : tensor<64x32xi1, #blocked>
    %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #blocked>
    %zs = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
    %qb = tile.local_alloc %q : (tensor<128x32xf16, #blocked>) -> !tile.memdesc<128x32xf16, #tile.nvmma_shared<swizzle = 64>>
    %out = scf.for %n0 = %c0 to %n step %c64 iter_args(%acc = %zs) -> (tensor<128x64xf32, #mma>) : i32 {
      %kt = tile.load %pk, %true, %z box %k[%n0, %c0] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi1, #blocked>, tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked>
      %vt = tile.load %pk, %true, %z box %v[%n0, %c0] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi1, #blocked>, tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked>
      %kb = tile.local_alloc %kt : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
      %vb = tile.local_alloc %vt : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
      %kT = tile.memdesc_trans %kb : <64x32xf16, #tile.nvmma_shared<swizzle = 64>> -> <32x64xf16, #tile.nvmma_shared<swizzle = 64, transposed = true>>
      %vT = tile.memdesc_trans %vb : <64x32xf16, #tile.nvmma_shared<swizzle = 64>> -> <32x64xf16, #tile.nvmma_shared<swizzle = 64, transposed = true>>
      %s = tile.warpgroup_dot %qb, %kT, %zs : <128x32xf16, #tile.nvmma_shared<swizzle = 64>> * <32x64xf16, #tile.nvmma_shared<swizzle = 64, transposed = true>> -> tensor<128x64xf32, #mma>
      %dp = tile.warpgroup_dot %qb, %vT, %zs : <128x32xf16, #tile.nvmma_shared<swizzle = 64>> * <32x64xf16, #tile.nvmma_shared<swizzle = 64, transposed = true>> -> tensor<128x64xf32, #mma>
      %sum = arith.addf %s, %dp : tensor<128x64xf32, #mma>
      %next = arith.addf %acc, %sum : tensor<128x64xf32, #mma>
      scf.yield %next : tensor<128x64xf32, #mma>
    } {tile.warp_specialize}
    tile.store %po, %out : tensor<128x64x!tile.ptr<f32>, #mma>, tensor<128x64xf32, #mma>
    return
  }
}

// -----

// Dots that stay in flight through the iteration. S (from buffers) and then D (a register a,
// independent of S) share one turn: S is waited for right after it (wait_group 1), D only
// before the yield, its only reader. E, also a register a and only carried, takes a turn of
// its own and is not waited for after it either: D's wait counts E issued after it (wait_group
// 1), E's none. The slots are freed after the last waits (K read by S and E, V by D).
// CHECK-LABEL: func.func @dots_in_flight_through_the_iteration
// CHECK:      } consumers {
// CHECK:        scf.for
// CHECK:          tile.turn_wait {groups = 2 : i32}
// CHECK-NEXT:     %[[S:.*]] = tile.warpgroup_dot {{.*}} {pendings = 1 : i32} : <128x32xf16
// CHECK-NOT:      tile.turn
// CHECK:          %[[D:.*]] = tile.warpgroup_dot {{.*}} {pendings = 1 : i32} : tensor<128x64xf16, #dot_op>
// CHECK-NEXT:     tile.turn_pass {groups = 2 : i32}
// CHECK-NEXT:     tile.warpgroup_dot_wait %[[S]] {pendings = 1 : i32}
// CHECK-NOT:      tile.barrier_arrive
// CHECK:          tile.turn_wait {groups = 2 : i32}
// CHECK-NEXT:     %[[E:.*]] = tile.warpgroup_dot {{.*}} {pendings = 1 : i32} : tensor<128x64xf16, #dot_op>
// CHECK-NEXT:     arith.cmpi
// CHECK-NEXT:     tile.turn_pass
// CHECK-NOT:      tile.barrier_arrive
// CHECK:          %[[DDONE:.*]] = tile.warpgroup_dot_wait %[[D]] {pendings = 1 : i32}
// CHECK-NEXT:     %[[EDONE:.*]] = tile.warpgroup_dot_wait %[[E]] {pendings = 0 : i32}
// CHECK-NEXT:     tile.barrier_arrive
// CHECK-NEXT:     tile.barrier_arrive
// CHECK-NEXT:     scf.yield %{{.*}}, %[[DDONE]], %[[EDONE]]

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma>
module attributes {tile.target = "sm_90a"} {
  func.func @dots_in_flight_through_the_iteration(%k: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32}, %v: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32},
                        %q: tensor<128x32xf16, #blocked>, %pa: tensor<128x64xf16, #dot_op>, %pk: tensor<64x32x!tile.ptr<f16>, #blocked>,
                        %po: tensor<128x64x!tile.ptr<f32>, #mma>, %po2: tensor<128x32x!tile.ptr<f32>, #mma>, %n: i32) attributes {tile.kernel, tile.num_stages = 2 : i32, tile.num_warps = 8 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %true = arith.constant dense<true> : tensor<64x32xi1, #blocked>
    %z = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #blocked>
    %zs = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
    %zo = arith.constant dense<0.000000e+00> : tensor<128x32xf32, #mma>
    %qb = tile.local_alloc %q : (tensor<128x32xf16, #blocked>) -> !tile.memdesc<128x32xf16, #tile.nvmma_shared<swizzle = 64>>
    %out:3 = scf.for %n0 = %c0 to %n step %c64 iter_args(%a1 = %zs, %a2 = %zo, %a3 = %zo) -> (tensor<128x64xf32, #mma>, tensor<128x32xf32, #mma>, tensor<128x32xf32, #mma>) : i32 {
      %kt = tile.load %pk, %true, %z box %k[%n0, %c0] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi1, #blocked>, tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked>
      %vt = tile.load %pk, %true, %z box %v[%n0, %c0] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi1, #blocked>, tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked>
      %kb = tile.local_alloc %kt : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
      %vb = tile.local_alloc %vt : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
      %kT = tile.memdesc_trans %kb : <64x32xf16, #tile.nvmma_shared<swizzle = 64>> -> <32x64xf16, #tile.nvmma_shared<swizzle = 64, transposed = true>>
      %s = tile.warpgroup_dot %qb, %kT, %zs : <128x32xf16, #tile.nvmma_shared<swizzle = 64>> * <32x64xf16, #tile.nvmma_shared<swizzle = 64, transposed = true>> -> tensor<128x64xf32, #mma>
      %d = tile.warpgroup_dot %pa, %vb, %a2 : tensor<128x64xf16, #dot_op> * <64x32xf16, #tile.nvmma_shared<swizzle = 64>> -> tensor<128x32xf32, #mma>
      %next = arith.addf %a1, %s : tensor<128x64xf32, #mma>
      %e = tile.warpgroup_dot %pa, %kb, %a3 : tensor<128x64xf16, #dot_op> * <64x32xf16, #tile.nvmma_shared<swizzle = 64>> -> tensor<128x32xf32, #mma>
      scf.yield %next, %d, %e : tensor<128x64xf32, #mma>, tensor<128x32xf32, #mma>, tensor<128x32xf32, #mma>
    } {tile.warp_specialize}
    tile.store %po, %out#0 : tensor<128x64x!tile.ptr<f32>, #mma>, tensor<128x64xf32, #mma>
    tile.store %po2, %out#1 : tensor<128x32x!tile.ptr<f32>, #mma>, tensor<128x32xf32, #mma>
    tile.store %po2, %out#2 : tensor<128x32x!tile.ptr<f32>, #mma>, tensor<128x32xf32, #mma>
    return
  }
}
