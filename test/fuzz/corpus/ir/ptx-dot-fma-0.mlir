func.func @dot_f16(%a: !tile.ptr<f16>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
  %pa = tile.splat %a : tensor<256x!tile.ptr<f16>>
  %qa = tile.addptr %pa, %r : tensor<256x!tile.ptr<f16>>, tensor<256xi32>
  %va = tile.load %qa : tensor<256x!tile.ptr<f16>> -> tensor<256xf16>
  %m = tile.reshape %va : tensor<256xf16> -> tensor<16x16xf16>
  %acc = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %m, %m, %acc : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  %dr = tile.reshape %d : tensor<16x16xf32> -> tensor<256xf32>
  %pc = tile.splat %c : tensor<256x!tile.ptr<f32>>
  %qc = tile.addptr %pc, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %qc, %dr : tensor<256x!tile.ptr<f32>>, tensor<256xf32>
  return
}
