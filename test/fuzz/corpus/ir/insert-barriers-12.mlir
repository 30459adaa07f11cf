#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

func.func @scratch(%x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  %b = tile.local_alloc {tile.offset = 4096 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  %c = tile.convert_layout %u {tile.scratch_offset = 0 : i32} : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked1>
  %v = tile.local_load %b : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  %d = tile.convert_layout %v {tile.scratch_offset = 0 : i32} : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked1>
  %e = tile.local_alloc %x {tile.offset = 0 : i32} : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  return
}
