// RUN: tile-opt %s -split-input-file --tile-insert-barriers | FileCheck %s

// tile-insert-barriers puts a tile.barrier (bar.sync) before any shared-memory access
// that overlaps one since the last barrier with a write on either side. The inputs carry
// the offsets tile-allocate-shared would give (tile.offset, tile.scratch_offset), so the
// pass runs alone; a 64x32xf16 buffer covers 4096 bytes.

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Read after write of one buffer: threads read what other threads wrote.
// CHECK-LABEL: func.func @write_then_read
// CHECK: tile.local_alloc
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: return
func.func @write_then_read(%x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc %x {tile.offset = 0 : i32} : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Reads do not race with reads: one barrier for the write, none between the two reads.
// local_store is a write like local_alloc's.
// CHECK-LABEL: func.func @two_reads
// CHECK: tile.local_store
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: return
func.func @two_reads(%x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  tile.local_store %x, %a : tensor<64x32xf16, #blocked>, !tile.memdesc<64x32xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  %v = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Disjoint buffers ([0, 4096) and [4096, 8192): adjacent, not overlapping) do not race:
// no barrier between their writes; one before the first read covers both; a local_alloc
// without a source writes nothing.
// CHECK-LABEL: func.func @disjoint_buffers
// CHECK: tile.local_alloc %{{.*}} {tile.offset = 0 : i32}
// CHECK-NEXT: tile.local_alloc %{{.*}} {tile.offset = 4096 : i32}
// CHECK-NEXT: tile.local_alloc {tile.offset = 0 : i32}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: return
func.func @disjoint_buffers(%x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc %x {tile.offset = 0 : i32} : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %b = tile.local_alloc %x {tile.offset = 4096 : i32} : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %c = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  %v = tile.local_load %b : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Two buffers that tile-allocate-shared put at one offset (the first dead before the
// second is defined): writing the second must wait for every thread's read of the
// first (write after read), then its own read needs another barrier.
// CHECK-LABEL: func.func @reused_offset
// CHECK: tile.local_alloc
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_alloc
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
func.func @reused_offset(%x: tensor<64x32xf16, #blocked>, %y: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc %x {tile.offset = 0 : i32} : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  %b = tile.local_alloc %y {tile.offset = 0 : i32} : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %v = tile.local_load %b : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Write after read across iterations: the body writes the buffer at its top and reads it
// at its end, so iteration i + 1's write must wait for iteration i's reads: a barrier
// before the write inside the loop (seen only by walking the body twice), and one
// between the write and the read.
// CHECK-LABEL: func.func @war_across_iterations
// CHECK: scf.for
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_store
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: scf.yield
// CHECK-NOT: tile.barrier
// CHECK: return
func.func @war_across_iterations(%x: tensor<64x32xf16, #blocked>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<64x32xf16, #blocked>) : i32 {
    tile.local_store %acc, %a : tensor<64x32xf16, #blocked>, !tile.memdesc<64x32xf16, #shared>
    %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    scf.yield %u : tensor<64x32xf16, #blocked>
  }
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A loop that writes and reads two disjoint buffers in turn: still one barrier per
// hazard, none where the buffers differ (the write of b at the top does not wait for the
// previous iteration's read of a, but does for its read of b).
// CHECK-LABEL: func.func @loop_two_buffers
// CHECK: scf.for
// CHECK-NEXT: tile.local_store %{{.*}}, %[[A:.*]] :
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load %[[A]]
// CHECK-NEXT: tile.local_store %{{.*}}, %[[B:.*]] :
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load %[[B]]
// CHECK-NEXT: scf.yield
func.func @loop_two_buffers(%x: tensor<64x32xf16, #blocked>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  %b = tile.local_alloc {tile.offset = 4096 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<64x32xf16, #blocked>) : i32 {
    tile.local_store %acc, %a : tensor<64x32xf16, #blocked>, !tile.memdesc<64x32xf16, #shared>
    %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    tile.local_store %u, %b : tensor<64x32xf16, #blocked>, !tile.memdesc<64x32xf16, #shared>
    %v = tile.local_load %b : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    scf.yield %v : tensor<64x32xf16, #blocked>
  }
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A buffer written before a loop and only read inside it: some barrier separates the
// write from the reads (where it goes is the pass's choice). The loop may run no
// iteration at all, so a read after it needs its own barrier too.
// CHECK-LABEL: func.func @written_before_loop
// CHECK: tile.local_alloc %
// CHECK: tile.barrier
// CHECK: tile.local_load
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: return
func.func @written_before_loop(%x: tensor<64x32xf16, #blocked>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = tile.local_alloc %x {tile.offset = 0 : i32} : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<64x32xf16, #blocked>) : i32 {
    %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    %s = arith.addf %acc, %u : tensor<64x32xf16, #blocked>
    scf.yield %s : tensor<64x32xf16, #blocked>
  }
  %v = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A cp.async copy lands when a wait retires it, and other threads' copies are visible
// only after a barrier that follows their waits: the barrier goes after the wait, right
// before the read, not before the copy (the buffer was never touched) or the wait.
// CHECK-LABEL: func.func @async_copy_wait_read
// CHECK: tile.local_alloc
// CHECK-NEXT: tile.async_copy
// CHECK-NEXT: tile.async_commit_group
// CHECK-NEXT: tile.async_wait {pending = 0 : i32}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: return
func.func @async_copy_wait_read(%p: tensor<64x32x!tile.ptr<f16>, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  tile.async_copy %p, %a {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked>, !tile.memdesc<64x32xf16, #shared>
  tile.async_commit_group
  tile.async_wait {pending = 0 : i32}
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A copy into a buffer other threads are reading must wait for them (write after read):
// barrier before the copy. A barrier does not publish a copy still in flight: the
// barrier for the unrelated buffer b in between leaves the copy into a pending, and the
// read of a after the wait still gets its own barrier.
// CHECK-LABEL: func.func @async_copy_war_and_in_flight
// CHECK: tile.local_load %[[A:[^ ]*]]
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.async_copy %{{.*}}, %[[A]]
// CHECK-NEXT: tile.async_commit_group
// CHECK-NEXT: %[[B:.*]] = tile.local_alloc
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load %[[B]]
// CHECK-NEXT: tile.async_wait {pending = 0 : i32}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load %[[A]]
// CHECK-NEXT: return
func.func @async_copy_war_and_in_flight(%p: tensor<64x32x!tile.ptr<f16>, #blocked>, %x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  tile.async_copy %p, %a {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked>, !tile.memdesc<64x32xf16, #shared>
  tile.async_commit_group
  %b = tile.local_alloc %x {tile.offset = 4096 : i32} : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %v = tile.local_load %b : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  tile.async_wait {pending = 0 : i32}
  %w = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A two-stage ring as tile-pipeline leaves it: copies into views of the ring (its whole
// 8192 bytes count, whichever stage is indexed). Each iteration needs exactly one
// barrier, after its wait and before the refill copy: it publishes the landed copies
// and orders the previous iteration's reads before the refill. After the loop, the wait
// for the last (masked-off, zero-filling) copies needs a barrier before the space is
// written again.
// CHECK-LABEL: func.func @pipelined_ring
// CHECK: scf.for
// CHECK-NEXT: tile.async_wait {pending = 0 : i32}
// CHECK-NEXT: tile.memdesc_index
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.async_copy
// CHECK-NEXT: tile.async_commit_group
// CHECK-NEXT: tile.memdesc_index
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_wait {pending = 0 : i32}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_alloc %{{.*}} {tile.offset = 0 : i32}
func.func @pipelined_ring(%p: tensor<64x32x!tile.ptr<f16>, #blocked>, %n: i32, %x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ring = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<2x64x32xf16, #shared>
  %s0 = tile.memdesc_index %ring[%c0] : !tile.memdesc<2x64x32xf16, #shared> -> !tile.memdesc<64x32xf16, #shared>
  tile.async_copy %p, %s0 {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked>, !tile.memdesc<64x32xf16, #shared>
  tile.async_commit_group
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<64x32xf16, #blocked>) : i32 {
    tile.async_wait {pending = 0 : i32}
    %sr = tile.memdesc_index %ring[%i] : !tile.memdesc<2x64x32xf16, #shared> -> !tile.memdesc<64x32xf16, #shared>
    tile.async_copy %p, %sr {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked>, !tile.memdesc<64x32xf16, #shared>
    tile.async_commit_group
    %s = tile.memdesc_index %ring[%i] : !tile.memdesc<2x64x32xf16, #shared> -> !tile.memdesc<64x32xf16, #shared>
    %u = tile.local_load %s : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    scf.yield %u : tensor<64x32xf16, #blocked>
  }
  tile.async_wait {pending = 0 : i32}
  %b = tile.local_alloc %r {tile.offset = 0 : i32} : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// scf.if: the state after it is the union of both branches. The then branch writes a,
// the else branch writes b: reading a after the if needs a barrier (then may have run),
// reading b after that does not (the barrier covered it). Nothing goes inside the
// branches.
// CHECK-LABEL: func.func @if_branches_merged
// CHECK: scf.if
// CHECK-NEXT: tile.local_store
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.local_store
// CHECK-NEXT: }
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: return
func.func @if_branches_merged(%c: i1, %x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  %b = tile.local_alloc {tile.offset = 4096 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  scf.if %c {
    tile.local_store %x, %a : tensor<64x32xf16, #blocked>, !tile.memdesc<64x32xf16, #shared>
  } else {
    tile.local_store %x, %b : tensor<64x32xf16, #blocked>, !tile.memdesc<64x32xf16, #shared>
  }
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  %v = tile.local_load %b : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A barrier in one branch does not cover the other: the then branch writes and reads a
// (barrier inside it), the else branch only writes a, so the read after the if still
// needs one. A barrier a branch needs before its first access goes before the if instead
// (its condition is a scalar: every thread takes the same path): the write before the if
// is then fenced on both paths, and the read after the if needs none.
// CHECK-LABEL: func.func @barrier_in_one_branch
// CHECK: scf.if
// CHECK-NEXT: tile.local_store
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK: } else {
// CHECK-NEXT: tile.local_store
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK-LABEL: func.func @if_without_else
// CHECK: tile.local_store
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: scf.if
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: }
// CHECK-NEXT: tile.local_load
func.func @barrier_in_one_branch(%c: i1, %x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  %r = scf.if %c -> tensor<64x32xf16, #blocked> {
    tile.local_store %x, %a : tensor<64x32xf16, #blocked>, !tile.memdesc<64x32xf16, #shared>
    %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    scf.yield %u : tensor<64x32xf16, #blocked>
  } else {
    tile.local_store %x, %a : tensor<64x32xf16, #blocked>, !tile.memdesc<64x32xf16, #shared>
    scf.yield %x : tensor<64x32xf16, #blocked>
  }
  %v = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}
func.func @if_without_else(%c: i1, %x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  tile.local_store %x, %a : tensor<64x32xf16, #blocked>, !tile.memdesc<64x32xf16, #shared>
  scf.if %c {
    %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  }
  %v = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Ops with scratch write it, fence, and read it back themselves; around them the pass
// treats the scratch as written before the op and read after it. A conversion whose
// scratch overlaps a buffer being read needs a barrier before it; a buffer written over
// the scratch afterwards needs one too; a second conversion at the same scratch needs
// one (its writes race with the first one's reads); a read of a disjoint buffer needs
// none.
// CHECK-LABEL: func.func @scratch
// CHECK: tile.local_load
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.convert_layout
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.convert_layout
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_alloc %{{.*}} {tile.offset = 0 : i32}
// CHECK-NEXT: return
func.func @scratch(%x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  %b = tile.local_alloc {tile.offset = 4096 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  %c = tile.convert_layout %u {tile.scratch_offset = 0 : i32} : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked1>
  %v = tile.local_load %b : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  %d = tile.convert_layout %v {tile.scratch_offset = 0 : i32} : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked1>
  %e = tile.local_alloc %x {tile.offset = 0 : i32} : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot = #tile.dot_operand<opIdx = 0, parent = #mma>
#lanes = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#reversed = #tile.linear<register = [], lane = [[16], [8], [4], [2], [1]], warp = [[32], [64]]>

// Conversions that stay in registers (mma accumulator -> operand a) or within warps (a
// lane permutation) touch no shared memory (tile-allocate-shared gave them no scratch):
// no barrier before them, and no barrier of theirs retires the read before them, so the
// write after them still needs one.
// CHECK-LABEL: func.func @no_shared_conversions
// CHECK: tile.local_load
// CHECK-NEXT: tile.convert_layout
// CHECK-NEXT: tile.convert_layout
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_store
func.func @no_shared_conversions(%x: tensor<64x32xf16, #blocked>, %m: tensor<64x64xf16, #mma>, %y: tensor<128xf32, #lanes>) attributes {tile.kernel} {
  %a = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  %c = tile.convert_layout %m : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot>
  %d = tile.convert_layout %y : tensor<128xf32, #lanes> -> tensor<128xf32, #reversed>
  tile.local_store %x, %a : tensor<64x32xf16, #blocked>, !tile.memdesc<64x32xf16, #shared>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// A barrier already there counts: nothing is added next to it.
// CHECK-LABEL: func.func @existing_barrier
// CHECK: tile.local_alloc
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: return
func.func @existing_barrier(%x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc %x {tile.offset = 0 : i32} : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  tile.barrier
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// wait(1) retires only the older of two committed groups: the copy into b is still in
// flight after it, so the barrier before reading a does not publish it, and reading b
// after wait(0) needs a barrier of its own.
// CHECK-LABEL: func.func @wait_retires_older_groups_only
// CHECK: tile.async_wait {pending = 1 : i32}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load %[[A:[^ ]*]]
// CHECK-NEXT: tile.async_wait {pending = 0 : i32}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: return
func.func @wait_retires_older_groups_only(%p: tensor<64x32x!tile.ptr<f16>, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  %b = tile.local_alloc {tile.offset = 4096 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  tile.async_copy %p, %a {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked>, !tile.memdesc<64x32xf16, #shared>
  tile.async_commit_group
  tile.async_copy %p, %b {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked>, !tile.memdesc<64x32xf16, #shared>
  tile.async_commit_group
  tile.async_wait {pending = 1 : i32}
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  tile.async_wait {pending = 0 : i32}
  %v = tile.local_load %b : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}

// -----

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#nvmma = #tile.nvmma_shared<swizzle = 128>

// A TMA store reads its buffer after the op: thread 0 waits for the read
// (tile.async_tma_store_wait) only at the first barrier after it, here the one the next
// iteration's read of its other buffer needs, not where the copy was issued; the staging
// buffer is then written again without a barrier of its own. The kernel ends with a wait for
// the last copy.
// CHECK-LABEL: func.func @tma_store_read_waited_late
// CHECK: scf.for
// CHECK-NEXT: tile.local_alloc %{{.*}} {tile.offset = 0 : i32}
// CHECK-NEXT: tile.async_tma_store_wait
// CHECK-NEXT: tile.fence_async_shared
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK-NEXT: tile.local_alloc %{{.*}} {tile.offset = 8192 : i32}
// CHECK-NEXT: tile.fence_async_shared
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.async_tma_store
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_tma_store_wait
// CHECK-NEXT: return
func.func @tma_store_read_waited_late(%x: tensor<64x64xf16, #mma>, %d: !tile.tensordesc<f16, 2>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %a = tile.local_alloc %x {tile.offset = 0 : i32} : (tensor<64x64xf16, #mma>) -> !tile.memdesc<64x64xf16, #nvmma>
    %u = tile.local_load %a : !tile.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf16, #mma>
    %s = tile.local_alloc %u {tile.offset = 8192 : i32} : (tensor<64x64xf16, #mma>) -> !tile.memdesc<64x64xf16, #nvmma>
    tile.async_tma_store %s -> %d[%i, %i] : !tile.memdesc<64x64xf16, #nvmma>, !tile.tensordesc<f16, 2>
  }
  return
}
