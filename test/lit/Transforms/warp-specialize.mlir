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
// With two stages the dots cannot stay in flight: no split (tile-pipeline pipelines it).
// S2-LABEL: func.func @warp_specialized
// S2-NOT: tile.warp_specialize producer
// S2: tile.load
// S2-NOT: tile.warp_specialize producer

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

// Negative cases, left as they are: a loop not marked; a marked loop after a memory access
// (the producer warps would repeat it); a marked loop on sm_80 (no TMA).
// CHECK-LABEL: func.func @not_marked
// CHECK-NOT:   tile.warp_specialize producer
// CHECK:       tile.load {{.*}} box
// CHECK-LABEL: func.func @after_a_store
// CHECK-NOT:   tile.warp_specialize producer
// CHECK:       tile.load {{.*}} box
// CHECK-NOT:   tile.warp_specialize producer

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

  func.func @after_a_store(%a: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32}, %b: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32},
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
