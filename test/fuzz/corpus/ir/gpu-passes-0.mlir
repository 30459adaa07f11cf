module attributes {tile.target = "sm_90"} {
func.func @matmul_k_loop(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                         %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %k: i32 {tile.divisibility = 16 : i32},
                         %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %rm = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %rk = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %rm2 = tile.expand_dims %rm {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ks = tile.splat %k : tensor<64x1xi32>
  %arow = arith.muli %rm2, %ks : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %rn2 = tile.expand_dims %rm {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %bcolb = tile.broadcast %rn2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %pa = tile.splat %a : tensor<64x32x!tile.ptr<f16>>
  %pb = tile.splat %b : tensor<32x64x!tile.ptr<f16>>
  %acc = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc1 = %acc0) -> (tensor<64x64xf32>) : i32 {
    %k0s = tile.splat %k0 : tensor<32xi32>
    %kk = arith.addi %k0s, %rk : tensor<32xi32>
    %kk2 = tile.expand_dims %kk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %kkb = tile.broadcast %kk2 : tensor<1x32xi32> -> tensor<64x32xi32>
    %aoff = arith.addi %arowb, %kkb : tensor<64x32xi32>
    %qa = tile.addptr %pa, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %kl = tile.splat %k : tensor<64x32xi32>
    %ma = arith.cmpi slt, %kkb, %kl : tensor<64x32xi32>
    %ta = tile.load %qa, %ma : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi1> -> tensor<64x32xf16>
    %kc = tile.expand_dims %kk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %ns = tile.splat %n : tensor<32x1xi32>
    %brow = arith.muli %kc, %ns : tensor<32x1xi32>
    %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
    %boff = arith.addi %browb, %bcolb : tensor<32x64xi32>
    %qb = tile.addptr %pb, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %kcb = tile.broadcast %kc : tensor<32x1xi32> -> tensor<32x64xi32>
    %kl2 = tile.splat %k : tensor<32x64xi32>
    %mb = arith.cmpi slt, %kcb, %kl2 : tensor<32x64xi32>
    %tb = tile.load %qb, %mb : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi1> -> tensor<32x64xf16>
    %d = tile.dot %ta, %tb, %acc1 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %rm3 = tile.expand_dims %rm {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ns3 = tile.splat %n : tensor<64x1xi32>
  %crow = arith.muli %rm3, %ns3 : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %rn3 = tile.expand_dims %rm {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %ccolb = tile.broadcast %rn3 : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %ccolb : tensor<64x64xi32>
  %pc = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  %qc = tile.addptr %pc, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %qc, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}
