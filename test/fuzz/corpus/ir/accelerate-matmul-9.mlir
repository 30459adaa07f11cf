module attributes {tile.target = "sm_90a"} {
func.func @no_wgmma_above_n256(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pa = tile.splat %a : tensor<64x16x!tile.ptr<f16>>
  %va = tile.load %pa : tensor<64x16x!tile.ptr<f16>> -> tensor<64x16xf16>
  %pb = tile.splat %b : tensor<16x512x!tile.ptr<f16>>
  %vb = tile.load %pb : tensor<16x512x!tile.ptr<f16>> -> tensor<16x512xf16>
  %acc = arith.constant dense<0.0> : tensor<64x512xf32>
  %d = tile.dot %va, %vb, %acc : tensor<64x16xf16> * tensor<16x512xf16> -> tensor<64x512xf32>
  %pc = tile.splat %c : tensor<64x512x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<64x512x!tile.ptr<f32>>, tensor<64x512xf32>
  return
}
}
