#blocked = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

func.func @sum_scratch(%y: tensor<512xf32, #blocked>) -> f32 attributes {tile.kernel} {
  %s = tile.reduce sum %y {axis = 0 : i32} : tensor<512xf32, #blocked> -> f32
  return %s : f32
}
