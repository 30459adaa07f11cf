// Strided loads. A constant stride of 2 over 16-byte-aligned rows: LLVM widens each thread's
// four loads into two 16-byte loads that skip the unused words (used_bytes_mask), and the store
// of the contiguous result is one 16-byte store. A stride known only at run time: one scalar
// load per element (its addresses have no contiguity to prove).
// RUN: tilec %s --stage=ptx | FileCheck %s
// RUN: %if ptxas %{ tilec %s --stage=regs | FileCheck %s --check-prefix=REGS %}

// CHECK: .visible .entry strided(
// CHECK: .pragma "used_bytes_mask 0xf0f";
// CHECK-NEXT: ld.global.v4.b32
// CHECK: .pragma "used_bytes_mask 0xf0f";
// CHECK-NEXT: ld.global.v4.b32
// CHECK-NOT: ld.global
// CHECK: st.global.v4.b32 {{.*}}{%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}
// CHECK-NOT: st.global
// REGS: 0 bytes spill stores, 0 bytes spill loads
func.func @strided(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32>
  %c2 = arith.constant dense<2> : tensor<512xi32>
  %offs = arith.muli %r, %c2 : tensor<512xi32>
  %xs = tile.splat %x : tensor<512x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %xp : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %ys = tile.splat %y : tensor<512x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %yp, %v : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}
