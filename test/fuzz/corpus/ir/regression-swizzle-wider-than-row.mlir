// fuzz-passes: tile-insert-barriers 2
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 65536, order = [1, 0]>

func.func @wait_retires_older_groups_only(%p: tensor<64x32x!tile.ptr<f16>, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  %b = tile.local_alloc {tile.offset = 4096 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  tile.async_copy %p, %a {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked>, !tile.memdesc<64x32xf16, #shared>
  tile.async_commit_group
  tile.async_copy %p, %b {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #blocked>, !tile.memdesc<64x32xf16, #shared>
  tile.async_commit_group
  tile.async_wait {pending = 1 : i32}
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  tile.async_wait {pending = 0 : i32}
  %v = tile.local_load %b : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}
