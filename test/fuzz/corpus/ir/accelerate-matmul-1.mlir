module attributes {tile.target = "sm_90"} {
func.func @fitted_operand_load(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %rm = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %rk = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %c16 = arith.constant 16 : i32
  %m2 = tile.expand_dims %rm {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %s16 = tile.splat %c16 : tensor<64x1xi32>
  %row = arith.muli %m2, %s16 : tensor<64x1xi32>
  %rowb = tile.broadcast %row : tensor<64x1xi32> -> tensor<64x16xi32>
  %k2 = tile.expand_dims %rk {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %kb = tile.broadcast %k2 : tensor<1x16xi32> -> tensor<64x16xi32>
  %offa = arith.addi %rowb, %kb : tensor<64x16xi32>
  %pa0 = tile.splat %a : tensor<64x16x!tile.ptr<f16>>
  %pa = tile.addptr %pa0, %offa : tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>
  %va = tile.load %pa : tensor<64x16x!tile.ptr<f16>> -> tensor<64x16xf16>
  %rn = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %pb0 = tile.splat %a : tensor<1024x!tile.ptr<f16>>
  %pb = tile.addptr %pb0, %rn : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
  %vb1 = tile.load %pb : tensor<1024x!tile.ptr<f16>> -> tensor<1024xf16>
  %vb = tile.reshape %vb1 : tensor<1024xf16> -> tensor<16x64xf16>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %va, %vb, %acc : tensor<64x16xf16> * tensor<16x64xf16> -> tensor<64x64xf32>
  %dr = tile.reshape %d : tensor<64x64xf32> -> tensor<4096xf32>
  %r4 = tile.make_range {start = 0 : i32, end = 4096 : i32} : tensor<4096xi32>
  %pc0 = tile.splat %c : tensor<4096x!tile.ptr<f32>>
  %pc = tile.addptr %pc0, %r4 : tensor<4096x!tile.ptr<f32>>, tensor<4096xi32>
  tile.store %pc, %dr : tensor<4096x!tile.ptr<f32>>, tensor<4096xf32>
  return
}
}
