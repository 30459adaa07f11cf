func.func @transposed_store(%in: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                            %m: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %rows = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cols = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %ms = tile.splat %m : tensor<64x1xi32>
  %rm = arith.muli %rows, %ms : tensor<64x1xi32>
  %rmb = tile.broadcast %rm : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %cols : tensor<1x64xi32> -> tensor<64x64xi32>
  %inoff = arith.addi %rmb, %cb : tensor<64x64xi32>
  %pin0 = tile.splat %in : tensor<64x64x!tile.ptr<f32>>
  %pin = tile.addptr %pin0, %inoff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %v = tile.load %pin : tensor<64x64x!tile.ptr<f32>> -> tensor<64x64xf32>
  %ms2 = tile.splat %m : tensor<1x64xi32>
  %cm = arith.muli %cols, %ms2 : tensor<1x64xi32>
  %cmb = tile.broadcast %cm : tensor<1x64xi32> -> tensor<64x64xi32>
  %rb = tile.broadcast %rows : tensor<64x1xi32> -> tensor<64x64xi32>
  %outoff = arith.addi %cmb, %rb : tensor<64x64xi32>
  %pout0 = tile.splat %out : tensor<64x64x!tile.ptr<f32>>
  %pout = tile.addptr %pout0, %outoff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %pout, %v : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
