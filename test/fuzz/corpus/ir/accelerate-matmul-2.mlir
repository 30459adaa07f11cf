module attributes {tile.target = "sm_90"} {
func.func @f32_dot(%a: !tile.ptr<f32>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pa = tile.splat %a : tensor<64x64x!tile.ptr<f32>>
  %va = tile.load %pa : tensor<64x64x!tile.ptr<f32>> -> tensor<64x64xf32>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %va, %va, %acc : tensor<64x64xf32> * tensor<64x64xf32> -> tensor<64x64xf32>
  %pc = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}
