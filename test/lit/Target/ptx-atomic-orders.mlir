// Atomics in their memory order and scope. A compare-and-swap carries both (LLVM's NVPTX
// keeps a cmpxchg's); a read-modify-write is a relaxed atom between fences of its scope
// (NVPTX drops an atomicrmw's order and scope), .sys at system scope (an NVVM intrinsic).
// A scalar atomic whose old value is used runs on thread 0, which hands it to every thread
// through shared memory (st.shared, bar.sync, ld.shared).
// RUN: tilec %s --stage=ptx | FileCheck %s

// CHECK-LABEL: .entry atomic_orders
// CHECK: atom.acquire.gpu.global.cas.b32
// CHECK: st.shared.b32
// CHECK: bar.sync
// CHECK: ld.shared.b32
// CHECK: fence.release.sys;
// CHECK: atom.sys.max.s32
// CHECK: fence.release.cta;
// CHECK-NEXT: atom.global.exch.b32
// CHECK-NEXT: fence.acquire.cta;
// CHECK-NOT: fence
// CHECK: atom.global.xor.b32
func.func @atomic_orders(%lock: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %x: !tile.ptr<i32> {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %old = tile.atomic_cas %lock, %c0, %c1 {sem = #tile.mem_sem<acquire>} : !tile.ptr<i32>, i32
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %xs = tile.splat %x : tensor<128x!tile.ptr<i32>>
  %off = tile.splat %old : tensor<128xi32>
  %i = arith.addi %r, %off : tensor<128xi32>
  %p = tile.addptr %xs, %i : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  %m = tile.atomic_rmw max %p, %r {sem = #tile.mem_sem<release>, scope = #tile.mem_scope<sys>} : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  %e = tile.atomic_rmw xchg %p, %m {sem = #tile.mem_sem<acq_rel>, scope = #tile.mem_scope<cta>} : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  %y = tile.atomic_rmw xor %p, %e : tensor<128x!tile.ptr<i32>>, tensor<128xi32>
  return
}
