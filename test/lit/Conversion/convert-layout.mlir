// RUN: tile-opt %s -split-input-file --convert-tile-to-llvm | FileCheck %s
// A tile.convert_layout is lowered as its two linear layouts allow
// (tile/Analysis/LayoutConversion.h): register picks when every thread already holds what it
// needs, shfl.sync within warps when the data stays in each warp and every lane reads the same
// register index, shared memory (stores, a barrier, loads) only for the rest.

// An mma.sync accumulator (m16n8, 4 warps along M) read as the a operand of the next
// mma.sync (m16n8k16): a's fragment is the accumulator fragments of two neighbouring n8
// tiles, so each thread already holds its 32 elements. There (negated) and back: no shared
// memory, no shuffle and no barrier between the loads and the stores.
// CHECK-LABEL: llvm.func @mma_to_operand_a
// CHECK-NOT: !llvm.ptr<3>
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier
// CHECK-COUNT-32: llvm.load {{.*}} : !llvm.ptr<1> -> f16
// CHECK-NOT: !llvm.ptr<3>
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier
// CHECK-COUNT-32: llvm.fneg
// CHECK-NOT: !llvm.ptr<3>
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier
// CHECK-COUNT-32: llvm.store {{.*}} : f16, !llvm.ptr<1>
// CHECK-NOT: !llvm.ptr<3>
// CHECK-NOT: nvvm.barrier
// CHECK: llvm.return
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot = #tile.dot_operand<opIdx = 0, parent = #mma>
#rows = #tile.slice<dim = 1, parent = #mma>
#cols = #tile.slice<dim = 0, parent = #mma>
func.func @mma_to_operand_a(%x: !tile.ptr<f16>, %y: !tile.ptr<f16>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #rows>
  %j = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #cols>
  %i2 = tile.expand_dims %i {axis = 1 : i32} : tensor<64xi32, #rows> -> tensor<64x1xi32, #mma>
  %j2 = tile.expand_dims %j {axis = 0 : i32} : tensor<64xi32, #cols> -> tensor<1x64xi32, #mma>
  %ib = tile.broadcast %i2 : tensor<64x1xi32, #mma> -> tensor<64x64xi32, #mma>
  %jb = tile.broadcast %j2 : tensor<1x64xi32, #mma> -> tensor<64x64xi32, #mma>
  %c64 = arith.constant dense<64> : tensor<64x64xi32, #mma>
  %row = arith.muli %ib, %c64 : tensor<64x64xi32, #mma>
  %off = arith.addi %row, %jb : tensor<64x64xi32, #mma>
  %xs = tile.splat %x : tensor<64x64x!tile.ptr<f16>, #mma>
  %p = tile.addptr %xs, %off : tensor<64x64x!tile.ptr<f16>, #mma>, tensor<64x64xi32, #mma>
  %v = tile.load %p : tensor<64x64x!tile.ptr<f16>, #mma> -> tensor<64x64xf16, #mma>
  %w = tile.convert_layout %v : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot>
  %n = arith.negf %w : tensor<64x64xf16, #dot>
  %back = tile.convert_layout %n : tensor<64x64xf16, #dot> -> tensor<64x64xf16, #mma>
  %ys = tile.splat %y : tensor<64x64x!tile.ptr<f16>, #mma>
  %q = tile.addptr %ys, %off : tensor<64x64x!tile.ptr<f16>, #mma>, tensor<64x64xi32, #mma>
  tile.store %q, %back : tensor<64x64x!tile.ptr<f16>, #mma>, tensor<64x64xf16, #mma>
  return
}

// -----

// Row statistics (attention's running max and sum) between the row slices of the
// accumulator and of operand a: the same rows on the same lanes and warps, there and back.
// CHECK-LABEL: llvm.func @row_slices
// CHECK-NOT: !llvm.ptr<3>
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier
// CHECK: llvm.return
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#dot = #tile.dot_operand<opIdx = 0, parent = #mma>
#rows = #tile.slice<dim = 1, parent = #mma>
#dotrows = #tile.slice<dim = 1, parent = #dot>
func.func @row_slices(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #rows>
  %xs = tile.splat %x : tensor<128x!tile.ptr<f32>, #rows>
  %p = tile.addptr %xs, %i : tensor<128x!tile.ptr<f32>, #rows>, tensor<128xi32, #rows>
  %v = tile.load %p : tensor<128x!tile.ptr<f32>, #rows> -> tensor<128xf32, #rows>
  %w = tile.convert_layout %v : tensor<128xf32, #rows> -> tensor<128xf32, #dotrows>
  %n = arith.negf %w : tensor<128xf32, #dotrows>
  %back = tile.convert_layout %n : tensor<128xf32, #dotrows> -> tensor<128xf32, #rows>
  tile.store %p, %back : tensor<128x!tile.ptr<f32>, #rows>, tensor<128xf32, #rows>
  return
}

// -----

// The lanes of each warp bit-reversed (lane l gets what lane reverse(l) held): one
// shfl.sync.idx per register from the lane whose bits are l's reversed (lane bit 0 adds 16,
// ...), no shared memory.
// CHECK-LABEL: llvm.func @lane_permutation
// CHECK-NOT: !llvm.ptr<3>
// CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> f32
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[LANE:.*]] = llvm.urem %[[TID]]
// CHECK: %[[BIT0:.*]] = llvm.and %[[LANE]], %{{.*}} : i32
// CHECK: %[[C16:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK: llvm.mul %[[BIT0]], %[[C16]] : i32
// CHECK: %[[BITS:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// CHECK: nvvm.shfl.sync idx %{{.*}}, %[[BITS]], %{{.*}}, %{{.*}} : i32 -> i32
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: !llvm.ptr<3>
// CHECK-NOT: nvvm.barrier
// CHECK: llvm.return
#lanes = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#reversed = #tile.linear<register = [], lane = [[16], [8], [4], [2], [1]], warp = [[32], [64]]>
func.func @lane_permutation(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #lanes>
  %xs = tile.splat %x : tensor<128x!tile.ptr<f32>, #lanes>
  %p = tile.addptr %xs, %i : tensor<128x!tile.ptr<f32>, #lanes>, tensor<128xi32, #lanes>
  %v = tile.load %p : tensor<128x!tile.ptr<f32>, #lanes> -> tensor<128xf32, #lanes>
  %w = tile.convert_layout %v : tensor<128xf32, #lanes> -> tensor<128xf32, #reversed>
  %j = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #reversed>
  %ys = tile.splat %y : tensor<128x!tile.ptr<f32>, #reversed>
  %q = tile.addptr %ys, %j : tensor<128x!tile.ptr<f32>, #reversed>, tensor<128xi32, #reversed>
  tile.store %q, %w : tensor<128x!tile.ptr<f32>, #reversed>, tensor<128xf32, #reversed>
  return
}

// -----

// Two f16 registers that come from the same source lane travel packed in one 32-bit
// shuffle (the first in the low half).
// CHECK-LABEL: llvm.func @packed_halves
// CHECK-NOT: !llvm.ptr<3>
// CHECK: llvm.bitcast %{{.*}} : f16 to i16
// CHECK: llvm.zext %{{.*}} : i16 to i32
// CHECK: llvm.bitcast %{{.*}} : f16 to i16
// CHECK: llvm.zext %{{.*}} : i16 to i32
// CHECK: llvm.shl
// CHECK: llvm.or
// CHECK: nvvm.shfl.sync idx {{.*}} : i32 -> i32
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.trunc %{{.*}} : i32 to i16
// CHECK: llvm.lshr
// CHECK: llvm.trunc %{{.*}} : i32 to i16
// CHECK-NOT: !llvm.ptr<3>
// CHECK-NOT: nvvm.barrier
// CHECK: llvm.return
#pairs = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#reversed = #tile.linear<register = [[1]], lane = [[32], [16], [8], [4], [2]], warp = [[64], [128]]>
func.func @packed_halves(%x: !tile.ptr<f16>, %y: !tile.ptr<f16>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32, #pairs>
  %xs = tile.splat %x : tensor<256x!tile.ptr<f16>, #pairs>
  %p = tile.addptr %xs, %i : tensor<256x!tile.ptr<f16>, #pairs>, tensor<256xi32, #pairs>
  %v = tile.load %p : tensor<256x!tile.ptr<f16>, #pairs> -> tensor<256xf16, #pairs>
  %w = tile.convert_layout %v : tensor<256xf16, #pairs> -> tensor<256xf16, #reversed>
  %j = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32, #reversed>
  %ys = tile.splat %y : tensor<256x!tile.ptr<f16>, #reversed>
  %q = tile.addptr %ys, %j : tensor<256x!tile.ptr<f16>, #reversed>, tensor<256xi32, #reversed>
  tile.store %q, %w : tensor<256x!tile.ptr<f16>, #reversed>, tensor<256xf16, #reversed>
  return
}

// -----

// The same linear layout under another attribute is a no-op: the loaded registers are
// stored as they are.
// CHECK-LABEL: llvm.func @same_linear_layout
// CHECK: %[[V:.*]] = llvm.load {{.*}} : !llvm.ptr<1> -> f32
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: !llvm.ptr<3>
// CHECK: llvm.store %[[V]], {{.*}} : f32, !llvm.ptr<1>
#lanes = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#same = #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = [[32], [64]]>
func.func @same_linear_layout(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #lanes>
  %xs = tile.splat %x : tensor<128x!tile.ptr<f32>, #lanes>
  %p = tile.addptr %xs, %i : tensor<128x!tile.ptr<f32>, #lanes>, tensor<128xi32, #lanes>
  %v = tile.load %p : tensor<128x!tile.ptr<f32>, #lanes> -> tensor<128xf32, #lanes>
  %w = tile.convert_layout %v : tensor<128xf32, #lanes> -> tensor<128xf32, #same>
  %q = tile.convert_layout %p : tensor<128x!tile.ptr<f32>, #lanes> -> tensor<128x!tile.ptr<f32>, #same>
  tile.store %q, %w : tensor<128x!tile.ptr<f32>, #same>, tensor<128xf32, #same>
  return
}

// -----

// A transpose (rows along lanes to columns along lanes, rows split over warps in the one and
// columns in the other) moves data between warps: through shared memory, fenced by a barrier.
// CHECK-LABEL: llvm.func @transpose
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load {{.*}} : !llvm.ptr<3>
#byrow = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#bycol = #tile.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
func.func @transpose(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %v = arith.constant dense<1.0> : tensor<64x64xf32, #byrow>
  %w = tile.convert_layout %v : tensor<64x64xf32, #byrow> -> tensor<64x64xf32, #bycol>
  %s = tile.reduce sum %w {axis = 0 : i32} : tensor<64x64xf32, #bycol> -> tensor<64xf32, #tile.slice<dim = 0, parent = #bycol>>
  %t = tile.reduce sum %s {axis = 0 : i32} : tensor<64xf32, #tile.slice<dim = 0, parent = #bycol>> -> f32
  tile.store %x, %t : !tile.ptr<f32>, f32
  return
}
