#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

func.func @if_branches_merged(%c: i1, %x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  %b = tile.local_alloc {tile.offset = 4096 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  scf.if %c {
    tile.local_store %x, %a : tensor<64x32xf16, #blocked>, !tile.memdesc<64x32xf16, #shared>
  } else {
    tile.local_store %x, %b : tensor<64x32xf16, #blocked>, !tile.memdesc<64x32xf16, #shared>
  }
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  %v = tile.local_load %b : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}
