func.func @remat_index_math(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pid = tile.program_id 0 : i32
  %c16 = arith.constant 16 : i32
  %base = arith.muli %pid, %c16 : i32
  %bs = tile.splat %base : tensor<16xi32>
  %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %rows = arith.addi %bs, %r : tensor<16xi32>
  %xs1 = tile.splat %x : tensor<16x!tile.ptr<f32>>
  %p1 = tile.addptr %xs1, %rows : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %v1 = tile.load %p1 : tensor<16x!tile.ptr<f32>> -> tensor<16xf32>
  tile.store %p1, %v1 : tensor<16x!tile.ptr<f32>>, tensor<16xf32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rb = tile.broadcast %r2 : tensor<16x1xi32> -> tensor<16x64xi32>
  %xs = tile.splat %x : tensor<16x64x!tile.ptr<f32>>
  %p = tile.addptr %xs, %rb : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  %v = tile.load %p : tensor<16x64x!tile.ptr<f32>> -> tensor<16x64xf32>
  tile.store %p, %v : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xf32>
  return
}
