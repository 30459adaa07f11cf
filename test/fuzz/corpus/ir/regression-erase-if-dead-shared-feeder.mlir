#b0 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b1 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @square_of_range(%p: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32, #b0>
  %s = arith.muli %r, %r : tensor<512xi32, #b0>
  %c = tile.convert_layout %s : tensor<512xi32, #b0> -> tensor<512xi32, #b1>
  %ps = tile.splat %p : tensor<512x!tile.ptr<i32>, #b1>
  %q = tile.addptr %ps, %c : tensor<512x!tile.ptr<i32>, #b1>, tensor<512xi32, #b1>
  tile.store %q, %c : tensor<512x!tile.ptr<i32>, #b1>, tensor<512xi32, #b1>
  return
}
