func.func @unaligned(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : tensor<1024x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %p : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
  tile.store %p, %v : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}
