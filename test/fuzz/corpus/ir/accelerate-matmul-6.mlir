module attributes {tile.target = "sm_90a"} {
func.func @wgmma_dot(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %pa = tile.splat %a : tensor<128x32x!tile.ptr<f16>>
  %va = tile.load %pa : tensor<128x32x!tile.ptr<f16>> -> tensor<128x32xf16>
  %pb = tile.splat %b : tensor<32x128x!tile.ptr<f16>>
  %vb = tile.load %pb : tensor<32x128x!tile.ptr<f16>> -> tensor<32x128xf16>
  %acc = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %va, %vb, %acc : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>
  %pc = tile.splat %c : tensor<128x128x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xf32>
  return
}
}
