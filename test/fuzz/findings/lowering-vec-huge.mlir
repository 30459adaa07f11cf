// fuzz-passes: convert-tile-to-llvm
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
module attributes {tile.target = "sm_75"} {
  func.func @sm_75(%p: tensor<64x32x!tile.ptr<f16>, #blocked>, %n: i32) -> tensor<64x32xf16, #blocked> attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %c0 = arith.constant 0 : i32
    %c32 = arith.constant 32 : i32
    %z = arith.constant dense<0.0> : tensor<64x32xf16, #blocked>
    %r = scf.for %i = %c0 to %n step %c32 iter_args(%acc = %z) -> (tensor<64x32xf16, #blocked>) : i32 {
    %is = tile.splat %i : tensor<64x32xi32, #blocked>
    %q = tile.addptr %p, %is : tensor<64x32x!tile.ptr<f16>, #blocked>, tensor<64x32xi32, #blocked>
    %v = tile.load %q {tile.vec = 2147483647 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked> -> tensor<64x32xf16, #blocked>
    %m = tile.local_alloc %v : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
    %w = tile.local_load %m : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    %s = arith.addf %acc, %w : tensor<64x32xf16, #blocked>
    scf.yield %s : tensor<64x32xf16, #blocked>
  }
    return %r : tensor<64x32xf16, #blocked>
  }
}
