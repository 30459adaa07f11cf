module attributes {tile.target = "sm_90"} {
func.func @small_dot(%a: !tile.ptr<f16>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pa = tile.splat %a : tensor<16x16x!tile.ptr<f16>>
  %va = tile.load %pa : tensor<16x16x!tile.ptr<f16>> -> tensor<16x16xf16>
  %pb = tile.splat %a : tensor<16x8x!tile.ptr<f16>>
  %vb = tile.load %pb : tensor<16x8x!tile.ptr<f16>> -> tensor<16x8xf16>
  %acc = arith.constant dense<0.0> : tensor<16x8xf32>
  %d = tile.dot %va, %vb, %acc : tensor<16x16xf16> * tensor<16x8xf16> -> tensor<16x8xf32>
  %pc = tile.splat %c : tensor<16x8x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<16x8x!tile.ptr<f32>>, tensor<16x8xf32>
  return
}
}
