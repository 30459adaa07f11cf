#b = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#p = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#s = #tile.slice<dim = 1, parent = #p>
func.func @rematerialize() -> tensor<64x1xi32, #p> attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pid = tile.program_id 0 : i32
  %c64 = arith.constant 64 : i32
  %base = arith.muli %pid, %c64 : i32
  %bs = tile.splat %base : tensor<64xi32, #b>
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #b>
  %rows = arith.addi %bs, %r : tensor<64xi32, #b>
  %rs = tile.convert_layout %rows : tensor<64xi32, #b> -> tensor<64xi32, #s>
  %e = tile.expand_dims %rs {axis = 1 : i32} : tensor<64xi32, #s> -> tensor<64x1xi32, #p>
  return %e : tensor<64x1xi32, #p>
}
