module attributes {tile.target = "sm_75"} {
func.func @sm75_dot(%a: !tile.ptr<f16>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pa = tile.splat %a : tensor<64x64x!tile.ptr<f16>>
  %va = tile.load %pa : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %va, %va, %acc : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
  %pc = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}
