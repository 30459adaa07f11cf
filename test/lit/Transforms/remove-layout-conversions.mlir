// RUN: tile-opt %s -split-input-file --tile-remove-layout-conversions | FileCheck %s

// tile-remove-layout-conversions alone, on laid-out IR written by hand.

// Chains: two conversions in a row convert once; a conversion back to the source's own
// layout disappears.
// CHECK-DAG: #[[B0:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[B2:blocked[0-9]*]] = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: func.func @chains
// CHECK-SAME: (%[[X:.*]]: tensor<512xf32, #[[B0]]>)
// CHECK-NEXT: %[[C:.*]] = tile.convert_layout %[[X]] : tensor<512xf32, #[[B0]]> -> tensor<512xf32, #[[B2]]>
// CHECK-NEXT: return %[[C]], %[[X]]
#b0 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b1 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b2 = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @chains(%x: tensor<512xf32, #b0>) -> (tensor<512xf32, #b2>, tensor<512xf32, #b0>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c1 = tile.convert_layout %x : tensor<512xf32, #b0> -> tensor<512xf32, #b1>
  %c2 = tile.convert_layout %c1 : tensor<512xf32, #b1> -> tensor<512xf32, #b2>
  %c3 = tile.convert_layout %x : tensor<512xf32, #b0> -> tensor<512xf32, #b1>
  %c4 = tile.convert_layout %c3 : tensor<512xf32, #b1> -> tensor<512xf32, #b0>
  return %c2, %c4 : tensor<512xf32, #b2>, tensor<512xf32, #b0>
}

// -----

// Rematerialisation: index arithmetic (pid * 64 + arange) converted into a slice layout
// for expand_dims is recomputed there instead of moved through shared memory.
// CHECK-DAG: #[[P:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[S:slice[0-9]*]] = #tile.slice<dim = 1, parent = #[[P]]>
// CHECK-LABEL: func.func @rematerialize
// CHECK-NOT: tile.convert_layout
// CHECK: tile.splat %{{.*}} : tensor<64xi32, #[[S]]>
// CHECK: tile.make_range {{.*}} : tensor<64xi32, #[[S]]>
// CHECK: arith.addi %{{.*}} : tensor<64xi32, #[[S]]>
// CHECK: tile.expand_dims %{{.*}} : tensor<64xi32, #[[S]]> -> tensor<64x1xi32, #[[P]]>
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

// -----

// Propagation: both operands of the add are converted from one layout, so the add runs
// there and its result is converted once.
// CHECK-DAG: #[[B0:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[B1:blocked[0-9]*]] = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: func.func @two_converted_operands
// CHECK-SAME: (%[[A:.*]]: tensor<128xf32, #[[B0]]>, %[[B:.*]]: tensor<128xf32, #[[B0]]>)
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[B]] : tensor<128xf32, #[[B0]]>
// CHECK-NEXT: %[[C:.*]] = tile.convert_layout %[[S]] : tensor<128xf32, #[[B0]]> -> tensor<128xf32, #[[B1]]>
// CHECK-NEXT: return %[[C]]
#b0 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b1 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @two_converted_operands(%a: tensor<128xf32, #b0>, %b: tensor<128xf32, #b0>) -> tensor<128xf32, #b1> attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %ca = tile.convert_layout %a : tensor<128xf32, #b0> -> tensor<128xf32, #b1>
  %cb = tile.convert_layout %b : tensor<128xf32, #b0> -> tensor<128xf32, #b1>
  %s = arith.addf %ca, %cb : tensor<128xf32, #b1>
  return %s : tensor<128xf32, #b1>
}

// -----

// Propagation through a chain of elementwise ops whose end converts back: no conversion
// is left. A constant operand is rebuilt in the source layout.
// CHECK-LABEL: func.func @converted_back
// CHECK-NOT: tile.convert_layout
// CHECK: arith.negf %{{.*}} : tensor<128xf32, #[[B0:blocked[0-9]*]]>
// CHECK: arith.mulf %{{.*}} : tensor<128xf32, #[[B0]]>
// CHECK-NOT: tile.convert_layout
#b0 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b1 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @converted_back(%a: tensor<128xf32, #b0>) -> tensor<128xf32, #b0> attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %ca = tile.convert_layout %a : tensor<128xf32, #b0> -> tensor<128xf32, #b1>
  %n = arith.negf %ca : tensor<128xf32, #b1>
  %two = arith.constant dense<2.0> : tensor<128xf32, #b1>
  %m = arith.mulf %n, %two : tensor<128xf32, #b1>
  %back = tile.convert_layout %m : tensor<128xf32, #b1> -> tensor<128xf32, #b0>
  return %back : tensor<128xf32, #b0>
}

// -----

// No gain, no change: one converted operand, the other in the destination layout and not
// rebuildable (a function argument), the result not converted back.
// CHECK-LABEL: func.func @no_gain
// CHECK-NEXT: %[[C:.*]] = tile.convert_layout
// CHECK-NEXT: arith.addf %[[C]], %{{.*}} : tensor<128xf32, #blocked{{[0-9]*}}>
#b0 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b1 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @no_gain(%a: tensor<128xf32, #b0>, %w: tensor<128xf32, #b1>) -> tensor<128xf32, #b1> attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %ca = tile.convert_layout %a : tensor<128xf32, #b0> -> tensor<128xf32, #b1>
  %s = arith.addf %ca, %w : tensor<128xf32, #b1>
  return %s : tensor<128xf32, #b1>
}
