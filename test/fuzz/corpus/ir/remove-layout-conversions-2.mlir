#b0 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b1 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @two_converted_operands(%a: tensor<128xf32, #b0>, %b: tensor<128xf32, #b0>) -> tensor<128xf32, #b1> attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %ca = tile.convert_layout %a : tensor<128xf32, #b0> -> tensor<128xf32, #b1>
  %cb = tile.convert_layout %b : tensor<128xf32, #b0> -> tensor<128xf32, #b1>
  %s = arith.addf %ca, %cb : tensor<128xf32, #b1>
  return %s : tensor<128xf32, #b1>
}
