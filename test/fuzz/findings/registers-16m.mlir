// fuzz-passes: tile-allocate-shared 3
#blocked = #tile.blocked<sizePerThread = [256, 65536], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

func.func @exising_barrier(%x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc %x {tile.offset = 0 : i32} : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  tile.barrier
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}
