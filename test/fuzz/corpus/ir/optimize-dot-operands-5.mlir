#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

func.func @in_loop(%pa: tensor<64x32x!tile.ptr<f16>, #blocked>, %pb: tensor<32x64x!tile.ptr<f16>, #blocked>, %n: i32) -> tensor<64x64xf32, #mma> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %x = tile.load %pa : tensor<64x32x!tile.ptr<f16>, #blocked> -> tensor<64x32xf16, #blocked>
    %y = tile.load %pb : tensor<32x64x!tile.ptr<f16>, #blocked> -> tensor<32x64xf16, #blocked>
    %a = tile.convert_layout %x : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #dot_a>
    %b = tile.convert_layout %y : tensor<32x64xf16, #blocked> -> tensor<32x64xf16, #dot_b>
    %d = tile.dot %a, %b, %acc : tensor<64x32xf16, #dot_a> * tensor<32x64xf16, #dot_b> -> tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}
