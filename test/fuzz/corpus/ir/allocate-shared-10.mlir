#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#blocked2 = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#tiny = #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>

func.func @scratch_alignment(%x: tensor<2x4xi8, #blocked>, %y: tensor<4xi8, #blocked1>, %z: tensor<2x2xi8, #blocked>, %w: tensor<16xf32, #blocked1>) attributes {tile.kernel} {
  %a = tile.local_alloc %x : (tensor<2x4xi8, #blocked>) -> !tile.memdesc<2x4xi8, #tiny>
  %c = tile.convert_layout %y : tensor<4xi8, #blocked1> -> tensor<4xi8, #blocked2>
  %u = tile.local_load %a : !tile.memdesc<2x4xi8, #tiny> -> tensor<2x4xi8, #blocked>
  %b = tile.local_alloc %z : (tensor<2x2xi8, #blocked>) -> !tile.memdesc<2x2xi8, #tiny>
  %d = tile.convert_layout %w : tensor<16xf32, #blocked1> -> tensor<16xf32, #blocked2>
  %v = tile.local_load %b : !tile.memdesc<2x2xi8, #tiny> -> tensor<2x2xi8, #blocked>
  return
}
