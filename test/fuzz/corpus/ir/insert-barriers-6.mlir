#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

func.func @written_before_loop(%x: tensor<64x32xf16, #blocked>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = tile.local_alloc %x {tile.offset = 0 : i32} : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<64x32xf16, #blocked>) : i32 {
    %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    %s = arith.addf %acc, %u : tensor<64x32xf16, #blocked>
    scf.yield %s : tensor<64x32xf16, #blocked>
  }
  %v = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}
