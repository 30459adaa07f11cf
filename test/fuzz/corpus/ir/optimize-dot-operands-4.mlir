#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>

func.func @other_converts_left_alone(%x: tensor<64x32xf16, #blocked>, %y: tensor<64x32xf16, #mma>) -> (tensor<64x32xf16, #blocked1>, tensor<64x32xf16, #blocked>) {
  %a = tile.convert_layout %x : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked1>
  %b = tile.convert_layout %y : tensor<64x32xf16, #mma> -> tensor<64x32xf16, #blocked>
  return %a, %b : tensor<64x32xf16, #blocked1>, tensor<64x32xf16, #blocked>
}
