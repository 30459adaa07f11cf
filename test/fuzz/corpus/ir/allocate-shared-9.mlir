#blocked = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

func.func @argmax_scratch(%y: tensor<512xf32, #blocked>) -> i32 attributes {tile.kernel} {
  %m = tile.reduce argmax %y {axis = 0 : i32} : tensor<512xf32, #blocked> -> i32
  return %m : i32
}
