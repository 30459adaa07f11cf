#b0 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b1 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @no_gain(%a: tensor<128xf32, #b0>, %w: tensor<128xf32, #b1>) -> tensor<128xf32, #b1> attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %ca = tile.convert_layout %a : tensor<128xf32, #b0> -> tensor<128xf32, #b1>
  %s = arith.addf %ca, %w : tensor<128xf32, #b1>
  return %s : tensor<128xf32, #b1>
}
