// A load whose stride is only known at run time (divisible by 16, but not 1): one scalar load
// per element, four per thread; the contiguous store stays one 16-byte store.
// RUN: tilec %s --stage=ptx | FileCheck %s

// CHECK: .visible .entry strided_runtime(
// CHECK-COUNT-4: ld.global.b32
// CHECK-NOT: ld.global.v
// CHECK: st.global.v4.b32
// CHECK-NOT: st.global
func.func @strided_runtime(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %s: i32 {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32>
  %ss = tile.splat %s : tensor<512xi32>
  %offs = arith.muli %r, %ss : tensor<512xi32>
  %xs = tile.splat %x : tensor<512x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %xp : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %ys = tile.splat %y : tensor<512x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %yp, %v : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}
