#b0 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b1 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b2 = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @chains(%x: tensor<512xf32, #b0>) -> (tensor<512xf32, #b2>, tensor<512xf32, #b0>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c1 = tile.convert_layout %x : tensor<512xf32, #b0> -> tensor<512xf32, #b1>
  %c2 = tile.convert_layout %c1 : tensor<512xf32, #b1> -> tensor<512xf32, #b2>
  %c3 = tile.convert_layout %x : tensor<512xf32, #b0> -> tensor<512xf32, #b1>
  %c4 = tile.convert_layout %c3 : tensor<512xf32, #b1> -> tensor<512xf32, #b0>
  return %c2, %c4 : tensor<512xf32, #b2>, tensor<512xf32, #b0>
}
