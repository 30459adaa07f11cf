// A transposed copy of a 64x64 tile: read along rows, written along columns. tile-coalesce gives
// the store a layout whose fastest dimension is the columns, so both global accesses are
// 16-byte vectors and the transpose happens in shared memory (one convert_layout, fenced by a
// barrier) instead of as 4-byte strided global stores.
// RUN: tilec %s --stage=opt | FileCheck %s --check-prefix=OPT
// RUN: tilec %s --stage=ptx | FileCheck %s
// RUN: %if ptxas %{ tilec %s --stage=regs | FileCheck %s --check-prefix=REGS %}

// OPT: tile.load {{.*}} {tile.vec = 4 : i32}
// OPT: tile.convert_layout
// OPT: tile.store {{.*}} {tile.vec = 4 : i32}
// CHECK: .visible .entry transpose(
// CHECK-COUNT-8: ld.global.v4.b32
// CHECK: st.shared
// CHECK: bar.sync 0;
// CHECK: ld.shared.b32
// CHECK-COUNT-8: st.global.v4.b32
// CHECK-NOT: st.global.b32
// REGS: 0 bytes spill stores, 0 bytes spill loads
func.func @transpose(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %c64 = arith.constant dense<64> : tensor<64x64xi32>
  %ri = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %rj = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %i = tile.broadcast %ri : tensor<64x1xi32> -> tensor<64x64xi32>
  %j = tile.broadcast %rj : tensor<1x64xi32> -> tensor<64x64xi32>
  %i64 = arith.muli %i, %c64 : tensor<64x64xi32>
  %rowMajor = arith.addi %i64, %j : tensor<64x64xi32>
  %j64 = arith.muli %j, %c64 : tensor<64x64xi32>
  %colMajor = arith.addi %j64, %i : tensor<64x64xi32>
  %xs = tile.splat %x : tensor<64x64x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %rowMajor : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %v = tile.load %xp : tensor<64x64x!tile.ptr<f32>> -> tensor<64x64xf32>
  %ys = tile.splat %y : tensor<64x64x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %colMajor : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %yp, %v : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
