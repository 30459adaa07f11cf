func.func @rows(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %rows = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %cols = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %c128 = arith.constant dense<128> : tensor<16x1xi32>
  %rs = arith.muli %r2, %c128 : tensor<16x1xi32>
  %rb = tile.broadcast %rs : tensor<16x1xi32> -> tensor<16x128xi32>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<16x128xi32>
  %offs = arith.addi %rb, %cb : tensor<16x128xi32>
  %xs = tile.splat %x : tensor<16x128x!tile.ptr<f32>>
  %p = tile.addptr %xs, %offs : tensor<16x128x!tile.ptr<f32>>, tensor<16x128xi32>
  %v = tile.load %p : tensor<16x128x!tile.ptr<f32>> -> tensor<16x128xf32>
  %m = tile.reduce max %v {axis = 1 : i32} : tensor<16x128xf32> -> tensor<16xf32>
  %m2 = tile.expand_dims %m {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  %mb = tile.broadcast %m2 : tensor<16x1xf32> -> tensor<16x128xf32>
  %d = arith.subf %v, %mb : tensor<16x128xf32>
  tile.store %p, %d : tensor<16x128x!tile.ptr<f32>>, tensor<16x128xf32>
  return
}
