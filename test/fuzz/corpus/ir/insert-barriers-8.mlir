#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

func.func @async_copy_war_and_in_flight(%p: tensor<64x32x!tile.ptr<f16>, #blocked>, %x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  tile.async_copy %p, %a {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked>, !tile.memdesc<64x32xf16, #shared>
  tile.async_commit_group
  %b = tile.local_alloc %x {tile.offset = 4096 : i32} : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %v = tile.local_load %b : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  tile.async_wait {pending = 0 : i32}
  %w = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}
