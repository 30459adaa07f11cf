#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

func.func @ring_through_views(%x: tensor<64x32xf16, #blocked>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ring = tile.local_alloc : () -> !tile.memdesc<2x64x32xf16, #shared>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<64x32xf16, #blocked>) : i32 {
    %s = tile.memdesc_index %ring[%i] : !tile.memdesc<2x64x32xf16, #shared> -> !tile.memdesc<64x32xf16, #shared>
    %u = tile.local_load %s : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    %v = tile.convert_layout %u : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked1>
    %w = tile.convert_layout %v : tensor<64x32xf16, #blocked1> -> tensor<64x32xf16, #blocked>
    scf.yield %w : tensor<64x32xf16, #blocked>
  }
  %e = tile.convert_layout %r : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked1>
  return
}
