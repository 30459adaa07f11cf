// Masked atomic adds (tile.atomic_rmw add): one atom.global.add.f32 per element, each behind a
// branch on its element's mask, after the masked loads that feed them.
// RUN: tilec %s --stage=ptx | FileCheck %s

// CHECK: .visible .entry atomics(
// CHECK-COUNT-4: ld.global.b32
// CHECK: @[[P:%p[0-9]+]] bra
// CHECK: atom.global.add.f32 {{%r[0-9]+}}, [{{%rd[0-9]+}}], {{%r[0-9]+}};
// CHECK-COUNT-3: atom.global.add.f32
// CHECK-NOT: atom.global
func.func @atomics(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32>
  %ns = tile.splat %n : tensor<512xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<512xi32>
  %ys = tile.splat %y : tensor<512x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %yp, %m : tensor<512x!tile.ptr<f32>>, tensor<512xi1> -> tensor<512xf32>
  %xs = tile.splat %x : tensor<512x!tile.ptr<f32>>
  %old = tile.atomic_rmw add %xs, %v, %m : tensor<512x!tile.ptr<f32>>, tensor<512xf32>, tensor<512xi1>
  return
}
