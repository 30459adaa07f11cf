// fuzz-passes: tile-allocate-shared 3
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [65536, 65536], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

func.func @f16_operands(%x: tensor<64x32xf16, #blocked>, %y: tensor<32x64xf16, #blocked>, %acc: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
  %a = tile.convert_layout %x : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #dot_a>
  %b = tile.convert_layout %y : tensor<32x64xf16, #blocked> -> tensor<32x64xf16, #dot_b>
  %d = tile.dot %a, %b, %acc : tensor<64x32xf16, #dot_a> * tensor<32x64xf16, #dot_b> -> tensor<64x64xf32, #mma>
  return %d : tensor<64x64xf32, #mma>
}
