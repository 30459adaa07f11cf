func.func @mma_f16(%a: !tile.ptr<f16>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32>
  %pa = tile.splat %a : tensor<512x!tile.ptr<f16>>
  %qa = tile.addptr %pa, %r : tensor<512x!tile.ptr<f16>>, tensor<512xi32>
  %va = tile.load %qa : tensor<512x!tile.ptr<f16>> -> tensor<512xf16>
  %x = tile.reshape %va : tensor<512xf16> -> tensor<32x16xf16>
  %y = tile.reshape %va : tensor<512xf16> -> tensor<16x32xf16>
  %acc = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %x, %y, %acc : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
  %dr = tile.reshape %d : tensor<32x32xf32> -> tensor<1024xf32>
  %r2 = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %pc = tile.splat %c : tensor<1024x!tile.ptr<f32>>
  %qc = tile.addptr %pc, %r2 : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %qc, %dr : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}
