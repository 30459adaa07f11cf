func.func @layouts(
    %l: tensor<32x16xf32, #tile.linear<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [0, 8]]>>,
    %r: tensor<32xi32, #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = []>>,
    %rows: tensor<64xf32, #tile.slice<dim = 1, parent = #tile.mma<warpsPerCTA = [2, 2]>>>,
    %cols: tensor<64xf32, #tile.slice<dim = 0, parent = #tile.mma<warpsPerCTA = [2, 2]>>>,
    %k: tensor<64xf16, #tile.slice<dim = 1, parent = #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [2, 2]>>>>,
    %lin: tensor<16xf32, #tile.slice<dim = 0, parent = #tile.linear<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [0, 8]]>>>,
    %ss: tensor<16xf32, #tile.slice<dim = 0, parent = #tile.slice<dim = 1, parent = #tile.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [2, 2, 8], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]>>>>) {
  return
}
