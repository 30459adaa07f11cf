#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

func.func @pipelined_ring(%p: tensor<64x32x!tile.ptr<f16>, #blocked>, %n: i32, %x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ring = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<2x64x32xf16, #shared>
  %s0 = tile.memdesc_index %ring[%c0] : !tile.memdesc<2x64x32xf16, #shared> -> !tile.memdesc<64x32xf16, #shared>
  tile.async_copy %p, %s0 {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked>, !tile.memdesc<64x32xf16, #shared>
  tile.async_commit_group
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<64x32xf16, #blocked>) : i32 {
    tile.async_wait {pending = 0 : i32}
    %sr = tile.memdesc_index %ring[%i] : !tile.memdesc<2x64x32xf16, #shared> -> !tile.memdesc<64x32xf16, #shared>
    tile.async_copy %p, %sr {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked>, !tile.memdesc<64x32xf16, #shared>
    tile.async_commit_group
    %s = tile.memdesc_index %ring[%i] : !tile.memdesc<2x64x32xf16, #shared> -> !tile.memdesc<64x32xf16, #shared>
    %u = tile.local_load %s : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    scf.yield %u : tensor<64x32xf16, #blocked>
  }
  tile.async_wait {pending = 0 : i32}
  %b = tile.local_alloc %r {tile.offset = 0 : i32} : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  return
}
