module attributes {tile.target = "sm_90a"} {
func.func @no_wgmma_for_32_rows(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pa = tile.splat %a : tensor<32x64x!tile.ptr<f16>>
  %va = tile.load %pa : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
  %pb = tile.splat %b : tensor<64x64x!tile.ptr<f16>>
  %vb = tile.load %pb : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
  %acc = arith.constant dense<0.0> : tensor<32x64xf32>
  %d = tile.dot %va, %vb, %acc : tensor<32x64xf16> * tensor<64x64xf16> -> tensor<32x64xf32>
  %pc = tile.splat %c : tensor<32x64x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xf32>
  return
}
}
