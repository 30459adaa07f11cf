#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 2], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#shared1 = #tile.swizzled_shared<vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]>

func.func @alignment_and_size_order(%x: tensor<16x16xf16, #blocked1>, %y: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc %x : (tensor<16x16xf16, #blocked1>) -> !tile.memdesc<16x16xf16, #shared1>
  %b = tile.local_alloc %x : (tensor<16x16xf16, #blocked1>) -> !tile.memdesc<16x16xf16, #shared1>
  %c = tile.local_alloc %y : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<16x16xf16, #shared1> -> tensor<16x16xf16, #blocked1>
  %v = tile.local_load %b : !tile.memdesc<16x16xf16, #shared1> -> tensor<16x16xf16, #blocked1>
  %w = tile.local_load %c : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}
