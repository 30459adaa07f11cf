#b0 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b1 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @converted_back(%a: tensor<128xf32, #b0>) -> tensor<128xf32, #b0> attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %ca = tile.convert_layout %a : tensor<128xf32, #b0> -> tensor<128xf32, #b1>
  %n = arith.negf %ca : tensor<128xf32, #b1>
  %two = arith.constant dense<2.0> : tensor<128xf32, #b1>
  %m = arith.mulf %n, %two : tensor<128xf32, #b1>
  %back = tile.convert_layout %m : tensor<128xf32, #b1> -> tensor<128xf32, #b0>
  return %back : tensor<128xf32, #b0>
}
