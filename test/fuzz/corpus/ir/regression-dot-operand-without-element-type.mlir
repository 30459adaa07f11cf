#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

func.func @narrow_b(%x: tensor<16x16xf16, #blocked>, %y: tensor<16x8xf16, #blocked1>, %acc: tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma> {
  %a = tile.convert_layout %x : tensor<16x16xf16, #blocked> -> tensor<16x16xf16, #dot_a>
  %b = tile.convert_layout %y : tensor<16x8xf16, #blocked1> -> tensor<16x8xf16, #dot_b>
  %d = tile.dot %a, %b, %acc : tensor<16x16xf16, #dot_a> * tensor<16x8x, #dot_b> -> tensor<16x8xf32, #mma>
  return %d : tensor<16x8xf32, #mma>
}
