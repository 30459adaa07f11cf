// RUN: tile-opt %s -split-input-file --tile-pipeline | FileCheck %s

// tile-pipeline alone, on laid-out IR written by hand: the rules that decide whether a
// load is pipelined, without the passes before it choosing the inputs. Each loop reads
// one 64x32 tile per iteration through load -> local_alloc -> local_load (the shape
// tile-optimize-dot-operands leaves); the vector width is the `tile.vec` written here.
// sm_80 is the first target with cp.async: pipelined (three stages by default).
// CHECK-LABEL: func.func @sm_80
// CHECK: %[[R:.*]] = tile.local_alloc : () -> !tile.memdesc<3x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
// CHECK-COUNT-2: tile.async_commit_group
// CHECK: scf.for
// CHECK-NEXT: tile.async_wait {pending = 1 : i32}
// CHECK: tile.async_copy
// CHECK-NEXT: tile.async_commit_group
// CHECK: %[[V:.*]] = tile.memdesc_index %[[R]]
// CHECK-NOT: tile.load
// CHECK: tile.local_load %[[V]]
// CHECK: tile.async_wait {pending = 0 : i32}
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
module attributes {tile.target = "sm_80"} {
  func.func @sm_80(%p: tensor<64x32x!tile.ptr<f16>, #blocked>, %n: i32) -> tensor<64x32xf16, #blocked> attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf16, #blocked>
    %r = scf.for %i = %c0 to %n step %c32 iter_args(%acc = %z) -> (tensor<64x32xf16, #blocked>) : i32 {
    %is = tile.splat %i : tensor<64x32xi32, #blocked>
    %q = tile.addptr %p, %is : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi32, #blocked>
    %v = tile.load %q {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked> -> tensor<64x32xf16, #blocked>
    %m = tile.local_alloc %v : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
    %w = tile.local_load %m : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    %s = arith.addf %acc, %w : tensor<64x32xf16, #blocked>
    scf.yield %s : tensor<64x32xf16, #blocked>
  }
    return %r : tensor<64x32xf16, #blocked>
  }
}

// -----

// sm_75 has no cp.async: the same loop is left exactly as it is.
// CHECK-LABEL: func.func @sm_75
// CHECK-NOT: tile.async
// CHECK: %[[V:.*]] = tile.load %{{.*}} {tile.vec = 8 : i32}
// CHECK-NEXT: %[[M:.*]] = tile.local_alloc %[[V]] : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
// CHECK-NEXT: tile.local_load %[[M]]
// CHECK-NOT: tile.async
// CHECK: return
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
module attributes {tile.target = "sm_75"} {
  func.func @sm_75(%p: tensor<64x32x!tile.ptr<f16>, #blocked>, %n: i32) -> tensor<64x32xf16, #blocked> attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf16, #blocked>
    %r = scf.for %i = %c0 to %n step %c32 iter_args(%acc = %z) -> (tensor<64x32xf16, #blocked>) : i32 {
    %is = tile.splat %i : tensor<64x32xi32, #blocked>
    %q = tile.addptr %p, %is : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi32, #blocked>
    %v = tile.load %q {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked> -> tensor<64x32xf16, #blocked>
    %m = tile.local_alloc %v : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
    %w = tile.local_load %m : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    %s = arith.addf %acc, %w : tensor<64x32xf16, #blocked>
    scf.yield %s : tensor<64x32xf16, #blocked>
  }
    return %r : tensor<64x32xf16, #blocked>
  }
}

// -----

// No tile.target: no cp.async assumed, left as it is.
// CHECK-LABEL: func.func @no_target
// CHECK-NOT: tile.async
// CHECK: %[[V:.*]] = tile.load
// CHECK-NEXT: tile.local_alloc %[[V]]
// CHECK-NOT: tile.async
// CHECK: return
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
module {
  func.func @no_target(%p: tensor<64x32x!tile.ptr<f16>, #blocked>, %n: i32) -> tensor<64x32xf16, #blocked> attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf16, #blocked>
    %r = scf.for %i = %c0 to %n step %c32 iter_args(%acc = %z) -> (tensor<64x32xf16, #blocked>) : i32 {
    %is = tile.splat %i : tensor<64x32xi32, #blocked>
    %q = tile.addptr %p, %is : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi32, #blocked>
    %v = tile.load %q {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked> -> tensor<64x32xf16, #blocked>
    %m = tile.local_alloc %v : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
    %w = tile.local_load %m : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    %s = arith.addf %acc, %w : tensor<64x32xf16, #blocked>
    scf.yield %s : tensor<64x32xf16, #blocked>
  }
    return %r : tensor<64x32xf16, #blocked>
  }
}

// -----

// The pointers are a loop-carried value (advanced by 32 each iteration), even with
// 16-byte accesses: iteration j + 2's pointers are not known at iteration j. Left as is.
// CHECK-LABEL: func.func @loop_carried_pointers
// CHECK-NOT: tile.async
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[Q:.*]] = %{{.*}})
// CHECK: %[[V:.*]] = tile.load %[[Q]] {tile.vec = 8 : i32}
// CHECK-NEXT: tile.local_alloc %[[V]]
// CHECK-NOT: tile.async
// CHECK: return
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
module attributes {tile.target = "sm_80"} {
  func.func @loop_carried_pointers(%p: tensor<64x32x!tile.ptr<f16>, #blocked>, %n: i32) -> tensor<64x32xf16, #blocked> attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %step = arith.constant dense<32> : tensor<64x32xi32, #blocked>
    %z = arith.constant dense<0.0> : tensor<64x32xf16, #blocked>
    %r, %pe = scf.for %i = %c0 to %n step %c32 iter_args(%acc = %z, %q = %p) -> (tensor<64x32xf16, #blocked>, tensor<64x32x!tile.ptr<f16>, #blocked>) : i32 {
    %v = tile.load %q {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked> -> tensor<64x32xf16, #blocked>
    %m = tile.local_alloc %v : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
    %w = tile.local_load %m : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    %s = arith.addf %acc, %w : tensor<64x32xf16, #blocked>
    %qn = tile.addptr %q, %step : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi32, #blocked>
    scf.yield %s, %qn : tensor<64x32xf16, #blocked>, tensor<64x32x!tile.ptr<f16>, #blocked>
  }
    return %r : tensor<64x32xf16, #blocked>
  }
}

// -----

// cp.async moves 4, 8 or 16 bytes per instruction: an f16 load one element (2 bytes) at a
// time is left as it is; two elements (4 bytes) at a time is pipelined, and the copy
// keeps the load's vector width.
// CHECK-LABEL: func.func @f16_vec1
// CHECK-NOT: tile.async
// CHECK: tile.load %{{.*}} {tile.vec = 1 : i32}
// CHECK-NEXT: tile.local_alloc
// CHECK-LABEL: func.func @f16_vec2
// CHECK: tile.local_alloc : () -> !tile.memdesc<3x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
// CHECK: tile.async_copy %{{.*}}, %{{.*}}, %{{.*}} {tile.vec = 2 : i32}
// CHECK-NOT: tile.load
// CHECK: return
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
module attributes {tile.target = "sm_80"} {
  func.func @f16_vec1(%p: tensor<64x32x!tile.ptr<f16>, #blocked>, %n: i32) -> tensor<64x32xf16, #blocked> attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf16, #blocked>
    %r = scf.for %i = %c0 to %n step %c32 iter_args(%acc = %z) -> (tensor<64x32xf16, #blocked>) : i32 {
    %is = tile.splat %i : tensor<64x32xi32, #blocked>
    %q = tile.addptr %p, %is : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi32, #blocked>
    %v = tile.load %q {tile.vec = 1 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked> -> tensor<64x32xf16, #blocked>
    %m = tile.local_alloc %v : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
    %w = tile.local_load %m : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    %s = arith.addf %acc, %w : tensor<64x32xf16, #blocked>
    scf.yield %s : tensor<64x32xf16, #blocked>
  }
    return %r : tensor<64x32xf16, #blocked>
  }
  func.func @f16_vec2(%p: tensor<64x32x!tile.ptr<f16>, #blocked>, %n: i32) -> tensor<64x32xf16, #blocked> attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf16, #blocked>
    %r = scf.for %i = %c0 to %n step %c32 iter_args(%acc = %z) -> (tensor<64x32xf16, #blocked>) : i32 {
    %is = tile.splat %i : tensor<64x32xi32, #blocked>
    %q = tile.addptr %p, %is : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi32, #blocked>
    %v = tile.load %q {tile.vec = 2 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked> -> tensor<64x32xf16, #blocked>
    %m = tile.local_alloc %v : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
    %w = tile.local_load %m : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    %s = arith.addf %acc, %w : tensor<64x32xf16, #blocked>
    scf.yield %s : tensor<64x32xf16, #blocked>
  }
    return %r : tensor<64x32xf16, #blocked>
  }
}

// -----

// Without tile.vec (tile-coalesce did not run) an access is one element: one f32 is 4
// bytes, enough for cp.async; the copy then carries no tile.vec either.
// CHECK-LABEL: func.func @f32_no_vec
// CHECK: tile.local_alloc : () -> !tile.memdesc<3x64x32xf32, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
// CHECK: tile.async_copy %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32x!tile.ptr<f32>, #blocked>
// CHECK-NOT: tile.load
// CHECK: return
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
module attributes {tile.target = "sm_80"} {
  func.func @f32_no_vec(%p: tensor<64x32x!tile.ptr<f32>, #blocked>, %n: i32) -> tensor<64x32xf32, #blocked> attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf32, #blocked>
    %r = scf.for %i = %c0 to %n step %c32 iter_args(%acc = %z) -> (tensor<64x32xf32, #blocked>) : i32 {
    %is = tile.splat %i : tensor<64x32xi32, #blocked>
    %q = tile.addptr %p, %is : tensor<64x32x!tile.ptr<f32>, #blocked>, tensor<64x32xi32, #blocked>
    %v = tile.load %q : tensor<64x32x!tile.ptr<f32>, #blocked> -> tensor<64x32xf32, #blocked>
    %m = tile.local_alloc %v : (tensor<64x32xf32, #blocked>) -> !tile.memdesc<64x32xf32, #shared>
    %w = tile.local_load %m : !tile.memdesc<64x32xf32, #shared> -> tensor<64x32xf32, #blocked>
    %s = arith.addf %acc, %w : tensor<64x32xf32, #blocked>
    scf.yield %s : tensor<64x32xf32, #blocked>
  }
    return %r : tensor<64x32xf32, #blocked>
  }
}

// -----

// The staged tile must be read only by local_loads directly in the loop body: a buffer
// also read inside an scf.if of the body, or a loaded tensor with another use, is left
// as it is.
// CHECK-LABEL: func.func @buffer_read_in_if
// CHECK-NOT: tile.async
// CHECK: tile.local_alloc %
// CHECK: return
// CHECK-LABEL: func.func @load_with_two_uses
// CHECK-NOT: tile.async
// CHECK: %[[V:.*]] = tile.load
// CHECK: arith.addf %{{.*}}, %[[V]]
// CHECK-NOT: tile.async
// CHECK: return
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
module attributes {tile.target = "sm_80"} {
  func.func @buffer_read_in_if(%p: tensor<64x32x!tile.ptr<f16>, #blocked>, %n: i32, %cond: i1) -> tensor<64x32xf16, #blocked> attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf16, #blocked>
    %r, %last = scf.for %i = %c0 to %n step %c32 iter_args(%acc = %z, %prev = %z) -> (tensor<64x32xf16, #blocked>, tensor<64x32xf16, #blocked>) : i32 {
      %is = tile.splat %i : tensor<64x32xi32, #blocked>
      %q = tile.addptr %p, %is : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi32, #blocked>
      %v = tile.load %q {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked> -> tensor<64x32xf16, #blocked>
      %m = tile.local_alloc %v : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
      %w = tile.local_load %m : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
      %s = arith.addf %acc, %w : tensor<64x32xf16, #blocked>
      %if = scf.if %cond -> tensor<64x32xf16, #blocked> {
        %w2 = tile.local_load %m : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
        scf.yield %w2 : tensor<64x32xf16, #blocked>
      } else {
        scf.yield %prev : tensor<64x32xf16, #blocked>
      }
      scf.yield %s, %if : tensor<64x32xf16, #blocked>, tensor<64x32xf16, #blocked>
    }
    return %r : tensor<64x32xf16, #blocked>
  }
  func.func @load_with_two_uses(%p: tensor<64x32x!tile.ptr<f16>, #blocked>, %n: i32) -> tensor<64x32xf16, #blocked> attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf16, #blocked>
    %r = scf.for %i = %c0 to %n step %c32 iter_args(%acc = %z) -> (tensor<64x32xf16, #blocked>) : i32 {
    %is = tile.splat %i : tensor<64x32xi32, #blocked>
    %q = tile.addptr %p, %is : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi32, #blocked>
    %v = tile.load %q {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked> -> tensor<64x32xf16, #blocked>
    %m = tile.local_alloc %v : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
    %w = tile.local_load %m : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    %s0 = arith.addf %acc, %w : tensor<64x32xf16, #blocked>
    %s = arith.addf %s0, %v : tensor<64x32xf16, #blocked>
    scf.yield %s : tensor<64x32xf16, #blocked>
  }
    return %r : tensor<64x32xf16, #blocked>
  }
}

// -----

// sm_90a: descriptor blocks read only by a warpgroup dot are TMA copies on one mbarrier per
// slot (a ring of the kernel's 4 stages, copies two iterations ahead: the dot keeps one wgmma
// group in flight). The prologue arms slots 0 and 1 with both blocks' bytes; each iteration
// waits for its slot's phase, refills slot (j + 2) % 4 (predicated off past the end) and reads
// slot j % 4; after the loop the last group is waited for, then the mbarriers go. The loads
// are the body's first ops (their box offsets come from outside the loop), so the schedule's
// insertion point at the body's start is one of the loads it erases.
// CHECK-LABEL: func.func @tma_in_loop
// CHECK:      %[[RA:.*]] = tile.local_alloc : () -> !tile.memdesc<4x64x32xf16, #tile.nvmma_shared<swizzle = 64>>
// CHECK-NEXT: %[[RB:.*]] = tile.local_alloc : () -> !tile.memdesc<4x32x64xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK-NEXT: %[[BARS:.*]] = tile.local_alloc : () -> !tile.memdesc<4x1x1xi64
// CHECK-NEXT: tile.init_barriers %[[BARS]]
// CHECK-NEXT: tile.barrier
// CHECK:      tile.barrier_expect %{{.*}}, %{{.*}} {bytes = 8192 : i32}
// CHECK-COUNT-2: tile.async_tma_load
// CHECK:      tile.barrier_expect %{{.*}}, %{{.*}} {bytes = 8192 : i32}
// CHECK-COUNT-2: tile.async_tma_load
// CHECK:      scf.for
// CHECK:        %[[W:.*]] = tile.memdesc_index %[[BARS]]
// CHECK-NEXT:   tile.barrier_wait %[[W]]
// CHECK:        %[[REFILL:.*]] = tile.memdesc_index %[[BARS]]
// CHECK-NEXT:   tile.barrier_expect %[[REFILL]], %{{.*}} {bytes = 8192 : i32}
// CHECK:        tile.async_tma_load %arg0[%{{.*}}, %{{.*}}] -> %{{.*}}, %[[REFILL]]
// CHECK:        tile.async_tma_load %arg1[%{{.*}}, %{{.*}}] -> %{{.*}}, %[[REFILL]]
// CHECK:        %[[A:.*]] = tile.memdesc_index %[[RA]]
// CHECK-NEXT:   %[[B:.*]] = tile.memdesc_index %[[RB]]
// CHECK-NEXT:   tile.warpgroup_dot %[[A]], %[[B]], %{{.*}} {pendings = 1 : i32}
// CHECK-NOT:    tile.load
// CHECK:      tile.warpgroup_dot_wait {{.*}} {pendings = 0 : i32}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.invalidate_barriers %[[BARS]]
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
module attributes {tile.target = "sm_90a"} {
  func.func @tma_in_loop(%a: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32}, %b: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32},
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
}

// -----

// One block read by two dots, as Bᵀ and as B (attention's backward reads Q so), staged
// into two buffers of one type: they merge into one, which the loop streams by TMA (one
// ring, one copy per iteration) instead of leaving the load unpipelined.
// CHECK-LABEL: func.func @one_block_two_buffers
// CHECK:      %[[RING:.*]] = tile.local_alloc : () -> !tile.memdesc<3x64x64xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK-NOT:  tile.local_alloc : () -> !tile.memdesc<3x64x64xf16
// CHECK:      scf.for
// CHECK:        tile.async_tma_load %arg0
// CHECK-NOT:    tile.async_tma_load
// CHECK:        %[[Q:.*]] = tile.memdesc_index %[[RING]]
// CHECK:        tile.memdesc_trans %[[Q]]
// CHECK:        tile.warpgroup_dot
// CHECK:        tile.warpgroup_dot %{{.*}}, %[[Q]]
// CHECK-NOT:    tile.load
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#shared = #tile.nvmma_shared<swizzle = 128>
#sharedT = #tile.nvmma_shared<swizzle = 128, transposed = true>
module attributes {tile.target = "sm_90a"} {
  func.func @one_block_two_buffers(%q: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32},
                                   %pq: tensor<64x64x!tile.ptr<f16>, #blocked>, %k: !tile.memdesc<64x64xf16, #shared>,
                                   %pc: tensor<64x64x!tile.ptr<f32>, #mma>, %n: i32) attributes {tile.kernel, tile.num_stages = 3 : i32, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %true = arith.constant dense<true> : tensor<64x64xi1, #blocked>
    %z = arith.constant dense<0.000000e+00> : tensor<64x64xf16, #blocked>
    %acc0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %acc = scf.for %m = %c0 to %n step %c64 iter_args(%acc1 = %acc0) -> (tensor<64x64xf32, #mma>) : i32 {
      %x = tile.load %pq, %true, %z box %q[%m, %c0] of !tile.tensordesc<f16, 2> : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi1, #blocked>, tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked>
      %b1 = tile.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !tile.memdesc<64x64xf16, #shared>
      %t = tile.memdesc_trans %b1 : <64x64xf16, #shared> -> <64x64xf16, #sharedT>
      %s = tile.warpgroup_dot %k, %t, %acc0 : <64x64xf16, #shared> * <64x64xf16, #sharedT> -> tensor<64x64xf32, #mma>
      %b2 = tile.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !tile.memdesc<64x64xf16, #shared>
      %d = tile.warpgroup_dot %k, %b2, %acc1 : <64x64xf16, #shared> * <64x64xf16, #shared> -> tensor<64x64xf32, #mma>
      %e = arith.addf %d, %s : tensor<64x64xf32, #mma>
      scf.yield %e : tensor<64x64xf32, #mma>
    }
    tile.store %pc, %acc : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
    return
  }
}

// -----

// Two independent dots of buffers issued back to back (attention's backward: S and dP) go
// in flight together: the first waited for when the second is issued, the second only
// before its result's first use, so the first's consumer (the exp2) runs beside it. A dot
// that reads the first's result stays synchronous.
// CHECK-LABEL: func.func @independent_dots
// CHECK:      %[[S:.*]] = tile.warpgroup_dot %arg0, %arg1, %{{.*}} {pendings = 1 : i32}
// CHECK-NEXT: %[[DP:.*]] = tile.warpgroup_dot %arg0, %arg2, %{{.*}} {pendings = 1 : i32}
// CHECK-NEXT: %[[S1:.*]] = tile.warpgroup_dot_wait %[[S]] {pendings = 1 : i32}
// CHECK-NEXT: %[[P:.*]] = math.exp2 %[[S1]]
// CHECK-NEXT: %[[DP1:.*]] = tile.warpgroup_dot_wait %[[DP]] {pendings = 0 : i32}
// CHECK-NEXT: arith.mulf %[[P]], %[[DP1]]
// CHECK-LABEL: func.func @dependent_dots
// CHECK-NOT:  pendings
// CHECK-NOT:  tile.warpgroup_dot_wait
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#shared = #tile.nvmma_shared<swizzle = 128>
module attributes {tile.target = "sm_90a"} {
  func.func @independent_dots(%a: !tile.memdesc<64x64xf16, #shared>, %b: !tile.memdesc<64x64xf16, #shared>,
                              %c: !tile.memdesc<64x64xf16, #shared>, %out: tensor<64x64x!tile.ptr<f32>, #mma>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %s = tile.warpgroup_dot %a, %b, %zero : <64x64xf16, #shared> * <64x64xf16, #shared> -> tensor<64x64xf32, #mma>
    %dp = tile.warpgroup_dot %a, %c, %zero : <64x64xf16, #shared> * <64x64xf16, #shared> -> tensor<64x64xf32, #mma>
    %p = math.exp2 %s : tensor<64x64xf32, #mma>
    %ds = arith.mulf %p, %dp : tensor<64x64xf32, #mma>
    tile.store %out, %ds : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
    return
  }
  func.func @dependent_dots(%a: !tile.memdesc<64x64xf16, #shared>, %b: !tile.memdesc<64x64xf16, #shared>,
                            %out: tensor<64x64x!tile.ptr<f32>, #mma>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %s = tile.warpgroup_dot %a, %b, %zero : <64x64xf16, #shared> * <64x64xf16, #shared> -> tensor<64x64xf32, #mma>
    %t = tile.warpgroup_dot %a, %b, %s : <64x64xf16, #shared> * <64x64xf16, #shared> -> tensor<64x64xf32, #mma>
    tile.store %out, %t : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
    return
  }
}

// -----

// A warp-specialised loop's consumers free their ring slot (tile.barrier_arrive) once no dot
// reads it: two independent dots still go in flight together, but the second is waited for
// before the arrival, even where its result is first used only after it.
// CHECK-LABEL: func.func @independent_dots_before_a_free_slot
// CHECK:      %[[S:.*]] = tile.warpgroup_dot %arg0, %arg1, %{{.*}} {pendings = 1 : i32}
// CHECK-NEXT: %[[DP:.*]] = tile.warpgroup_dot %arg0, %arg2, %{{.*}} {pendings = 1 : i32}
// CHECK-NEXT: %[[S1:.*]] = tile.warpgroup_dot_wait %[[S]] {pendings = 1 : i32}
// CHECK-NEXT: %[[P:.*]] = math.exp2 %[[S1]]
// CHECK-NEXT: %[[DP1:.*]] = tile.warpgroup_dot_wait %[[DP]] {pendings = 0 : i32}
// CHECK-NEXT: tile.barrier_arrive
// CHECK-NEXT: arith.mulf %[[P]], %[[DP1]]
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#shared = #tile.nvmma_shared<swizzle = 128>
#bar = #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>
module attributes {tile.target = "sm_90a"} {
  func.func @independent_dots_before_a_free_slot(%a: !tile.memdesc<64x64xf16, #shared>, %b: !tile.memdesc<64x64xf16, #shared>,
                                                 %c: !tile.memdesc<64x64xf16, #shared>, %bar: !tile.memdesc<1x1xi64, #bar>,
                                                 %out: tensor<64x64x!tile.ptr<f32>, #mma>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %true = arith.constant true
    %s = tile.warpgroup_dot %a, %b, %zero : <64x64xf16, #shared> * <64x64xf16, #shared> -> tensor<64x64xf32, #mma>
    %dp = tile.warpgroup_dot %a, %c, %zero : <64x64xf16, #shared> * <64x64xf16, #shared> -> tensor<64x64xf32, #mma>
    %p = math.exp2 %s : tensor<64x64xf32, #mma>
    tile.barrier_arrive %bar, %true : !tile.memdesc<1x1xi64, #bar>
    %ds = arith.mulf %p, %dp : tensor<64x64xf32, #mma>
    tile.store %out, %ds : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
    return
  }
}
