#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

func.func @reused_offset(%x: tensor<64x32xf16, #blocked>, %y: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc %x {tile.offset = 0 : i32} : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  %b = tile.local_alloc %y {tile.offset = 0 : i32} : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  %v = tile.local_load %b : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}
