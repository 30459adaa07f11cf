module attributes {tile.target = "sm_90"} {
func.func @num_stages_attribute(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %k: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.num_stages = 2147483647 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %r64 = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r32 = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %ar = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ks = tile.splat %k : tensor<64x1xi32>
  %arow = arith.muli %ar, %ks : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %ac = tile.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %acolb = tile.broadcast %ac : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %arowb, %acolb : tensor<64x32xi32>
  %pa = tile.splat %a : tensor<64x32x!tile.ptr<f16>>
  %pa0 = tile.addptr %pa, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %br = tile.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %s64 = tile.splat %c64 : tensor<32x1xi32>
  %brow = arith.muli %br, %s64 : tensor<32x1xi32>
  %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
  %bc = tile.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %bcolb = tile.broadcast %bc : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %browb, %bcolb : tensor<32x64xi32>
  %pb = tile.splat %b : tensor<32x64x!tile.ptr<f16>>
  %pb0 = tile.addptr %pb, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc1 = %acc0) -> (tensor<64x64xf32>) : i32 {
    %ka = tile.splat %k0 : tensor<64x32xi32>
    %qa = tile.addptr %pa0, %ka : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %ta = tile.load %qa : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
    %k64 = arith.muli %k0, %c64 : i32
    %kb = tile.splat %k64 : tensor<32x64xi32>
    %qb = tile.addptr %pb0, %kb : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %tb = tile.load %qb : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %ta, %tb, %acc1 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %cr = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cs = tile.splat %c64 : tensor<64x1xi32>
  %crow = arith.muli %cr, %cs : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccolb = tile.broadcast %bc : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %ccolb : tensor<64x64xi32>
  %pc = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  %qc = tile.addptr %pc, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %qc, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}
