func.func @reduce_of_reduce(%a: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %p = tile.splat %a : tensor<4x8x16x!tile.ptr<f32>>
  %x = tile.load %p : tensor<4x8x16x!tile.ptr<f32>> -> tensor<4x8x16xf32>
  %r1 = tile.reduce sum %x {axis = 0 : i32} : tensor<4x8x16xf32> -> tensor<8x16xf32>
  %r2 = tile.reduce sum %r1 {axis = 1 : i32} : tensor<8x16xf32> -> tensor<8xf32>
  %q = tile.splat %a : tensor<8x!tile.ptr<f32>>
  tile.store %q, %r2 : tensor<8x!tile.ptr<f32>>, tensor<8xf32>
  return
}
