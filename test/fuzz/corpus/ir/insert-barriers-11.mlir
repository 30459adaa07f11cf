#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

func.func @barrier_in_one_branch(%c: i1, %x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  %r = scf.if %c -> tensor<64x32xf16, #blocked> {
    tile.local_store %x, %a : tensor<64x32xf16, #blocked>, !tile.memdesc<64x32xf16, #shared>
    %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
    scf.yield %u : tensor<64x32xf16, #blocked>
  } else {
    tile.local_store %x, %a : tensor<64x32xf16, #blocked>, !tile.memdesc<64x32xf16, #shared>
    scf.yield %x : tensor<64x32xf16, #blocked>
  }
  %v = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}
func.func @if_without_else(%c: i1, %x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  %a = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #shared>
  tile.local_store %x, %a : tensor<64x32xf16, #blocked>, !tile.memdesc<64x32xf16, #shared>
  scf.if %c {
    %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  }
  %v = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}
