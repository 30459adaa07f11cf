func.func @slice_meets_blocked(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %cols = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %cb = tile.broadcast %c2 : tensor<1x32xi32> -> tensor<32x32xi32>
  %xs = tile.splat %x : tensor<32x32x!tile.ptr<f32>>
  %p = tile.addptr %xs, %cb : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  %v = tile.load %p : tensor<32x32x!tile.ptr<f32>> -> tensor<32x32xf32>
  %s = tile.reduce sum %v {axis = 1 : i32} : tensor<32x32xf32> -> tensor<32xf32>
  %ys = tile.splat %y : tensor<32x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %cols : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
  %w = tile.load %yp : tensor<32x!tile.ptr<f32>> -> tensor<32xf32>
  %t = arith.addf %s, %w : tensor<32xf32>
  tile.store %yp, %t : tensor<32x!tile.ptr<f32>>, tensor<32xf32>
  return
}
