#blocked = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

func.func @no_shared_memory(%x: tensor<512xf32, #blocked>) -> tensor<512xf32, #blocked> attributes {tile.kernel} {
  %y = arith.addf %x, %x : tensor<512xf32, #blocked>
  return %y : tensor<512xf32, #blocked>
}
