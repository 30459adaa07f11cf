#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked2 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#blocked3 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

func.func @scratch(%x: tensor<64x32xf16, #blocked>, %y: tensor<512xf32, #blocked3>, %z: tensor<64x32xf32, #blocked>) attributes {tile.kernel} {
  %a = tile.convert_layout %x : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked1>
  %b = tile.reshape %x : tensor<64x32xf16, #blocked> -> tensor<2048xf16, #blocked2>
  %s = tile.reduce sum %y {axis = 0 : i32} : tensor<512xf32, #blocked3> -> f32
  %m = tile.reduce argmax %y {axis = 0 : i32} : tensor<512xf32, #blocked3> -> i32
  %r = tile.reduce max %z {axis = 1 : i32} : tensor<64x32xf32, #blocked> -> tensor<64xf32, #tile.slice<dim = 1, parent = #blocked>>
  return
}
