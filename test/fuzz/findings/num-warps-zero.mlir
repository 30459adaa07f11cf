func.func @strided_rows(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %stride: i32) attributes {tile.kernel, tile.num_warps = 0 : i32} {
  %pid = tile.program_id 0 : i32
  %row = arith.muli %pid, %stride : i32
  %base = tile.addptr %x, %row : !tile.ptr<f32>, i32
  %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32>
  %xs = tile.splat %base : tensor<512x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %p : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  tile.store %p, %v : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}
