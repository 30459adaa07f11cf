// RUN: tile-opt %s -split-input-file --tile-allocate-shared | FileCheck %s

// tile-allocate-shared gives every tile.local_alloc a byte offset (tile.offset, 1024-byte
// aligned where a swizzle reads it, else 16) and every op that needs scratch one too (tile.scratch_offset, 16-byte
// aligned), by liveness: what is live at the same time never overlaps, the rest reuses
// the space; the module gets the total as tile.shared_bytes. A 64x32xf16 buffer is 4096
// bytes.

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Two buffers live at the same time (both written before either is read) get disjoint
// ranges; equal sizes are placed in program order.
// CHECK: module attributes {tile.shared_bytes = 8192 : i32}
// CHECK-LABEL: func.func @live_together
// CHECK: tile.local_alloc %{{.*}} {tile.offset = 0 : i32}
// CHECK-NEXT: tile.local_alloc %{{.*}} {tile.offset = 4096 : i32}
func.func @live_together(%x: tensor<64x32xf16, #blocked>, %y: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc %x : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %b = tile.local_alloc %y : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  %v = tile.local_load %b : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A buffer whose last use comes before the next one is defined gives that one its
// space: both at 0, 4096 bytes in all.
// CHECK: module attributes {tile.shared_bytes = 4096 : i32}
// CHECK-LABEL: func.func @reuse_after_last_use
// CHECK: tile.local_alloc %{{.*}} {tile.offset = 0 : i32}
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: tile.local_alloc %{{.*}} {tile.offset = 0 : i32}
func.func @reuse_after_last_use(%x: tensor<64x32xf16, #blocked>, %y: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc %x : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  %b = tile.local_alloc %y : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %v = tile.local_load %b : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 2], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#shared1 = #tile.swizzled_shared<vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]>

// Buffers start on 1024-byte boundaries (what a 128-byte swizzle needs): two live
// 16x16xf16 buffers (512 bytes each) go to 0 and 1024, not 512. Larger buffers are
// placed first: the 4096-byte one defined last still gets offset 0, and the small ones
// follow it at 4096 and 5120.
// CHECK: module attributes {tile.shared_bytes = 5632 : i32}
// CHECK-LABEL: func.func @alignment_and_size_order
// CHECK: tile.local_alloc %{{.*}} {tile.offset = 4096 : i32} : (tensor<16x16xf16
// CHECK-NEXT: tile.local_alloc %{{.*}} {tile.offset = 5120 : i32} : (tensor<16x16xf16
// CHECK-NEXT: tile.local_alloc %{{.*}} {tile.offset = 0 : i32} : (tensor<64x32xf16
func.func @alignment_and_size_order(%x: tensor<16x16xf16, #blocked1>, %y: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc %x : (tensor<16x16xf16, #blocked1>) -> !tile.memdesc<16x16xf16, #shared1>
  %b = tile.local_alloc %x : (tensor<16x16xf16, #blocked1>) -> !tile.memdesc<16x16xf16, #shared1>
  %c = tile.local_alloc %y : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<16x16xf16, #shared1> -> tensor<16x16xf16, #blocked1>
  %v = tile.local_load %b : !tile.memdesc<16x16xf16, #shared1> -> tensor<16x16xf16, #blocked1>
  %w = tile.local_load %c : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A buffer defined before a loop and read inside it is read again by the next
// iteration: it stays live over the whole loop, so the buffer defined after the read
// (in program order) must not take its space.
// CHECK: module attributes {tile.shared_bytes = 8192 : i32}
// CHECK-LABEL: func.func @used_in_loop_from_outside
// CHECK: tile.local_alloc %{{.*}} {tile.offset = 0 : i32}
// CHECK: scf.for
// CHECK: tile.local_load
// CHECK-NEXT: tile.local_alloc %{{.*}} {tile.offset = 4096 : i32}
func.func @used_in_loop_from_outside(%x: tensor<64x32xf16, #blocked>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = tile.local_alloc %x : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<64x32xf16, #blocked>) : i32 {
    %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    %b = tile.local_alloc %acc : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
    %v = tile.local_load %b : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    %s = arith.addf %u, %v : tensor<64x32xf16, #blocked>
    scf.yield %s : tensor<64x32xf16, #blocked>
  }
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// The same buffer read only before the loop is dead inside it: the loop's buffer reuses
// offset 0.
// CHECK: module attributes {tile.shared_bytes = 4096 : i32}
// CHECK-LABEL: func.func @dead_before_loop
// CHECK: tile.local_alloc %{{.*}} {tile.offset = 0 : i32}
// CHECK: scf.for
// CHECK: tile.local_alloc %{{.*}} {tile.offset = 0 : i32}
func.func @dead_before_loop(%x: tensor<64x32xf16, #blocked>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = tile.local_alloc %x : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %u) -> (tensor<64x32xf16, #blocked>) : i32 {
    %b = tile.local_alloc %acc : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
    %v = tile.local_load %b : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    scf.yield %v : tensor<64x32xf16, #blocked>
  }
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Nested loops: a buffer defined in the outer body and read in the inner loop lives to
// the end of the inner loop (the inner buffer cannot share it), but not to the end of the
// outer body (the buffer after the inner loop can).
// CHECK: module attributes {tile.shared_bytes = 8192 : i32}
// CHECK-LABEL: func.func @nested_loops
// CHECK: scf.for
// CHECK-NEXT: tile.local_alloc %{{.*}} {tile.offset = 0 : i32}
// CHECK-NEXT: scf.for
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: tile.local_alloc %{{.*}} {tile.offset = 4096 : i32}
// CHECK: scf.yield
// CHECK: tile.local_alloc %{{.*}} {tile.offset = 0 : i32}
func.func @nested_loops(%x: tensor<64x32xf16, #blocked>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<64x32xf16, #blocked>) : i32 {
    %a = tile.local_alloc %acc : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
    %t = scf.for %j = %c0 to %n step %c1 iter_args(%in = %acc) -> (tensor<64x32xf16, #blocked>) : i32 {
      %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
      %b = tile.local_alloc %in : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
      %v = tile.local_load %b : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
      %s = arith.addf %u, %v : tensor<64x32xf16, #blocked>
      scf.yield %s : tensor<64x32xf16, #blocked>
    }
    %c = tile.local_alloc %t : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
    %w = tile.local_load %c : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    scf.yield %w : tensor<64x32xf16, #blocked>
  }
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A pipelined loop's ring (2 x 4096 bytes) is used through memdesc_index views inside
// the loop: live over the whole loop, so the layout conversions inside the loop get
// scratch past it (4096 bytes at 8192, 12288 in all), while the one after the loop reuses
// offset 0.
// CHECK: module attributes {tile.shared_bytes = 12288 : i32}
// CHECK-LABEL: func.func @ring_through_views
// CHECK: tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<2x64x32xf16
// CHECK: scf.for
// CHECK: tile.memdesc_index
// CHECK: tile.convert_layout %{{.*}} {tile.scratch_offset = 8192 : i32}
// CHECK-NEXT: tile.convert_layout %{{.*}} {tile.scratch_offset = 8192 : i32}
// CHECK-NEXT: scf.yield
// CHECK: tile.convert_layout %{{.*}} {tile.scratch_offset = 0 : i32}
func.func @ring_through_views(%x: tensor<64x32xf16, #blocked>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ring = tile.local_alloc : () -> !tile.memdesc<2x64x32xf16, #shared>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<64x32xf16, #blocked>) : i32 {
    %s = tile.memdesc_index %ring[%i] : !tile.memdesc<2x64x32xf16, #shared> -> !tile.memdesc<64x32xf16, #shared>
    %u = tile.local_load %s : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    %v = tile.convert_layout %u : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked1>
    %w = tile.convert_layout %v : tensor<64x32xf16, #blocked1> -> tensor<64x32xf16, #blocked>
    scf.yield %w : tensor<64x32xf16, #blocked>
  }
  %e = tile.convert_layout %r : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked1>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked2 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#blocked3 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// Scratch of the ops that exchange data through shared memory, each live only at its op
// (so all at 0 here): a layout conversion and a reshape exchange the whole tensor
// (64x32xf16: 4096 bytes), a reduction across four warps one slot per warp (f32 sum: 16
// bytes; argmax adds an i32 index: 32). A reduction within a warp (axis 1 of a layout
// with all warps along axis 0) needs none.
// CHECK: module attributes {tile.shared_bytes = 4096 : i32}
// CHECK-LABEL: func.func @scratch
// CHECK: tile.convert_layout %{{.*}} {tile.scratch_offset = 0 : i32}
// CHECK-NEXT: tile.reshape %{{.*}} {tile.scratch_offset = 0 : i32}
// CHECK-NEXT: tile.reduce{{ +}}sum %{{.*}} {axis = 0 : i32, tile.scratch_offset = 0 : i32}
// CHECK-NEXT: tile.reduce{{ +}}argmax %{{.*}} {axis = 0 : i32, tile.scratch_offset = 0 : i32}
// CHECK-NEXT: tile.reduce{{ +}}max %{{.*}} {axis = 1 : i32} :
func.func @scratch(%x: tensor<64x32xf16, #blocked>, %y: tensor<512xf32, #blocked3>, %z: tensor<64x32xf32, #blocked>) attributes {tile.kernel} {
  %a = tile.convert_layout %x : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked1>
  %b = tile.reshape %x : tensor<64x32xf16, #blocked> -> tensor<2048xf16, #blocked2>
  %s = tile.reduce sum %y {axis = 0 : i32} : tensor<512xf32, #blocked3> -> f32
  %m = tile.reduce argmax %y {axis = 0 : i32} : tensor<512xf32, #blocked3> -> i32
  %r = tile.reduce max %z {axis = 1 : i32} : tensor<64x32xf32, #blocked> -> tensor<64xf32, #tile.slice<dim = 1, parent = #blocked>>
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot = #tile.dot_operand<opIdx = 0, parent = #mma>
#lanes = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#reversed = #tile.linear<register = [], lane = [[16], [8], [4], [2], [1]], warp = [[32], [64]]>

// Conversions that need no shared memory (tile/Analysis/LayoutConversion.h) get no
// scratch: an mma accumulator read as the next mma's operand a (each thread already holds
// its elements), the row statistics between the slices of the two, and the lanes of each
// warp permuted (shfl.sync). Nothing else needs shared memory: no tile.shared_bytes.
// CHECK: module {
// CHECK-NEXT: func.func @no_scratch
// CHECK-NOT: tile.scratch_offset
// CHECK: return
func.func @no_scratch(%x: tensor<128x64xf16, #mma>, %m: tensor<128xf32, #tile.slice<dim = 1, parent = #mma>>, %y: tensor<128xf32, #lanes>) attributes {tile.kernel} {
  %a = tile.convert_layout %x : tensor<128x64xf16, #mma> -> tensor<128x64xf16, #dot>
  %b = tile.convert_layout %m : tensor<128xf32, #tile.slice<dim = 1, parent = #mma>> -> tensor<128xf32, #tile.slice<dim = 1, parent = #dot>>
  %c = tile.convert_layout %y : tensor<128xf32, #lanes> -> tensor<128xf32, #reversed>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// The reductions' scratch sizes, seen in tile.shared_bytes when nothing else needs any:
// one f32 per warp for a sum over four warps ...
// CHECK: module attributes {tile.shared_bytes = 16 : i32}
// CHECK-LABEL: func.func @sum_scratch
// CHECK: tile.reduce{{ +}}sum %{{.*}} {axis = 0 : i32, tile.scratch_offset = 0 : i32}
func.func @sum_scratch(%y: tensor<512xf32, #blocked>) -> f32 attributes {tile.kernel} {
  %s = tile.reduce sum %y {axis = 0 : i32} : tensor<512xf32, #blocked> -> f32
  return %s : f32
}

// -----

#blocked = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// ... and an f32 and an i32 index per warp for an argmax.
// CHECK: module attributes {tile.shared_bytes = 32 : i32}
// CHECK-LABEL: func.func @argmax_scratch
// CHECK: tile.reduce{{ +}}argmax %{{.*}} {axis = 0 : i32, tile.scratch_offset = 0 : i32}
func.func @argmax_scratch(%y: tensor<512xf32, #blocked>) -> i32 attributes {tile.kernel} {
  %m = tile.reduce argmax %y {axis = 0 : i32} : tensor<512xf32, #blocked> -> i32
  return %m : i32
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.linear<register = [], lane = [[0], [0], [0], [0], [0]], warp = [[1], [2]]>
#blocked2 = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#blocked3 = #tile.linear<register = [], lane = [[1], [2], [0], [0], [0]], warp = [[4], [8]]>
#tiny = #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>

// Scratch is aligned to 16 bytes only, and so are buffers no swizzle reads (#tiny, as the
// pipeliner's mbarrier rings): next to a live 8-byte buffer (2x4xi8) a 4-byte conversion
// scratch goes to 16, and a 4-byte buffer (2x2xi8) live across a 64-byte conversion goes to
// 64, not to the next 1024 boundary. (The sources spread their elements over the warps, which
// #blocked2 gives all to warp 0's lanes: the data crosses warps, so both conversions need
// shared memory.)
// CHECK: module attributes {tile.shared_bytes = 68 : i32}
// CHECK-LABEL: func.func @scratch_alignment
// CHECK: tile.local_alloc %{{.*}} {tile.offset = 0 : i32} : (tensor<2x4xi8
// CHECK-NEXT: tile.convert_layout %{{.*}} {tile.scratch_offset = 16 : i32} : tensor<4xi8
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: tile.local_alloc %{{.*}} {tile.offset = 64 : i32} : (tensor<2x2xi8
// CHECK-NEXT: tile.convert_layout %{{.*}} {tile.scratch_offset = 0 : i32} : tensor<16xf32
func.func @scratch_alignment(%x: tensor<2x4xi8, #blocked>, %y: tensor<4xi8, #blocked1>, %z: tensor<2x2xi8, #blocked>, %w: tensor<16xf32, #blocked3>) attributes {tile.kernel} {
  %a = tile.local_alloc %x : (tensor<2x4xi8, #blocked>) -> !tile.memdesc<2x4xi8, #tiny>
  %c = tile.convert_layout %y : tensor<4xi8, #blocked1> -> tensor<4xi8, #blocked2>
  %u = tile.local_load %a : !tile.memdesc<2x4xi8, #tiny> -> tensor<2x4xi8, #blocked>
  %b = tile.local_alloc %z : (tensor<2x2xi8, #blocked>) -> !tile.memdesc<2x2xi8, #tiny>
  %d = tile.convert_layout %w : tensor<16xf32, #blocked3> -> tensor<16xf32, #blocked2>
  %v = tile.local_load %b : !tile.memdesc<2x2xi8, #tiny> -> tensor<2x2xi8, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Kernels of one module run apart: each one's buffers start at 0, and tile.shared_bytes
// is the largest need (8192), not the sum.
// CHECK: module attributes {tile.shared_bytes = 8192 : i32}
// CHECK-LABEL: func.func @first_kernel
// CHECK: tile.local_alloc %{{.*}} {tile.offset = 0 : i32}
// CHECK-LABEL: func.func @second_kernel
// CHECK: tile.local_alloc %{{.*}} {tile.offset = 0 : i32}
// CHECK-NEXT: tile.local_alloc %{{.*}} {tile.offset = 4096 : i32}
func.func @first_kernel(%x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc %x : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}
func.func @second_kernel(%x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc %x : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %b = tile.local_alloc %x : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  %v = tile.local_load %b : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// No shared memory at all: no offsets, and no tile.shared_bytes on the module.
// CHECK: module {
// CHECK-NEXT: func.func @no_shared_memory
// CHECK-NOT: tile.offset
// CHECK-NOT: tile.scratch_offset
// CHECK: return
func.func @no_shared_memory(%x: tensor<512xf32, #blocked>) -> tensor<512xf32, #blocked> attributes {tile.kernel} {
  %y = arith.addf %x, %x : tensor<512xf32, #blocked>
  return %y : tensor<512xf32, #blocked>
}
