// Distributed layouts print and parse back: #tile.linear with its bases written out, and
// #tile.slice of any distributed parent (mma, dot operand, linear, another slice).
// RUN: tile-opt %s | tile-opt | FileCheck %s

// CHECK-DAG: #[[MMA:.*]] = #tile.mma<warpsPerCTA = [2, 2]>
// CHECK-DAG: #[[LINEAR:linear[0-9]*]] = #tile.linear<register = {{\[\[}}0, 1], [8, 0]], lane = {{\[\[}}0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[\[}}16, 0], [0, 8]]>
// CHECK-DAG: #[[LINEAR1:linear[0-9]*]] = #tile.linear<register = [], lane = {{\[\[}}1], [2], [4], [8], [16]], warp = []>
// CHECK-DAG: #[[ROWS:slice[0-9]*]] = #tile.slice<dim = 1, parent = #[[MMA]]>
// CHECK-DAG: #[[COLS:slice[0-9]*]] = #tile.slice<dim = 0, parent = #[[MMA]]>
// CHECK-DAG: #[[OPK:slice[0-9]*]] = #tile.slice<dim = 1, parent = #dot_op>
// CHECK-DAG: #[[LIN:slice[0-9]*]] = #tile.slice<dim = 0, parent = #[[LINEAR]]>
// CHECK-DAG: #[[B3:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [2, 2, 8], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]>
// CHECK-DAG: #[[S2:slice[0-9]*]] = #tile.slice<dim = 1, parent = #[[B3]]>
// CHECK-DAG: #[[SS:slice[0-9]*]] = #tile.slice<dim = 0, parent = #[[S2]]>

// CHECK-LABEL: func.func @layouts
// CHECK-SAME: tensor<32x16xf32, #[[LINEAR]]>
// CHECK-SAME: tensor<32xi32, #[[LINEAR1]]>
// CHECK-SAME: tensor<64xf32, #[[ROWS]]>
// CHECK-SAME: tensor<64xf32, #[[COLS]]>
// CHECK-SAME: tensor<64xf16, #[[OPK]]>
// CHECK-SAME: tensor<16xf32, #[[LIN]]>
// CHECK-SAME: tensor<16xf32, #[[SS]]>
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
