func.func @dot_trans_reshape(%a: !tile.ptr<f16>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pa = tile.splat %a : tensor<16x32x!tile.ptr<f16>>
  %va = tile.load %pa : tensor<16x32x!tile.ptr<f16>> -> tensor<16x32xf16>
  %vt = tile.trans %va {order = array<i32: 1, 0>} : tensor<16x32xf16> -> tensor<32x16xf16>
  %acc = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %vt, %va, %acc : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
  %dr = tile.reshape %d : tensor<32x32xf32> -> tensor<1024xf32>
  %pc = tile.splat %c : tensor<1024x!tile.ptr<f32>>
  tile.store %pc, %dr : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}
