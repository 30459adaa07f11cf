#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>

func.func @f32_staged(%x: tensor<64x32xf32, #blocked>) -> tensor<64x32xf32, #dot_a> {
  %a = tile.convert_layout %x : tensor<64x32xf32, #blocked> -> tensor<64x32xf32, #dot_a>
  return %a : tensor<64x32xf32, #dot_a>
}
