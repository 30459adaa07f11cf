// RUN: tile-opt %s -split-input-file --convert-tile-to-llvm | FileCheck %s
// Lowering asks the layout's linear map, whatever the attribute: a #tile.linear tensor
// and slices of #tile.mma lower like blocked ones.

// 128 elements on 2 warps, lane bit 0 moving by 32 (no blocked layout does that). The
// range's coordinate takes lane bit 0 times 32; the sum runs over every lane bit (5
// butterflies, offsets 1..16), then the two warps through shared memory.
// CHECK-LABEL: llvm.func @linear_sum
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[LANE:.*]] = llvm.urem %[[TID]]
// CHECK: %[[BIT:.*]] = llvm.and %[[LANE]], %{{.*}} : i32
// CHECK: %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK: llvm.mul %[[BIT]], %[[C32]] : i32
// CHECK-COUNT-2: llvm.load {{.*}} : !llvm.ptr<1> -> f32
// CHECK: llvm.fadd
// CHECK: llvm.mlir.constant(1 : i32)
// CHECK: nvvm.shfl.sync{{ +}}bfly
// CHECK: llvm.mlir.constant(2 : i32)
// CHECK: nvvm.shfl.sync{{ +}}bfly
// CHECK: llvm.mlir.constant(4 : i32)
// CHECK: nvvm.shfl.sync{{ +}}bfly
// CHECK: llvm.mlir.constant(8 : i32)
// CHECK: nvvm.shfl.sync{{ +}}bfly
// CHECK: llvm.mlir.constant(16 : i32)
// CHECK: nvvm.shfl.sync{{ +}}bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-2: llvm.load {{.*}} : !llvm.ptr<3> -> f32
#lin = #tile.linear<register = [[1]], lane = [[32], [2], [4], [8], [16]], warp = [[64]]>
func.func @linear_sum(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 2 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #lin>
  %xs = tile.splat %x : tensor<128x!tile.ptr<f32>, #lin>
  %p = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>, #lin>, tensor<128xi32, #lin>
  %v = tile.load %p : tensor<128x!tile.ptr<f32>, #lin> -> tensor<128xf32, #lin>
  %s = tile.reduce sum %v {axis = 0 : i32} : tensor<128xf32, #lin> -> f32
  tile.store %y, %s : !tile.ptr<f32>, f32
  return
}

// -----

// Row maxima of a 64x64 mma accumulator on 2x2 warps, kept in the mma layout: the rows
// come from make_range over a slice of #mma expanded and broadcast back (no data
// moves), each thread's 32 registers are 4 rows x 8 columns, a row's columns span lane
// bits 0 and 1 (butterflies 1, 2) and warp bit 1 (shared memory, 2 slots per row).
// Then the 64 row maxima, a slice of #mma, sum to a scalar: lane bits 2..4 (butterflies
// 4, 8, 16; lanes 0 and 1 hold copies) and warp bit 0; warp bit 1 holds copies.
// CHECK-LABEL: llvm.func @mma_rows
// CHECK-NOT: nvvm.barrier0
// CHECK-COUNT-32: llvm.load {{.*}} : !llvm.ptr<1> -> f32
// CHECK-NOT: nvvm.barrier0
// A thread's 8 elements of a row combine pairwise, a tree 3 deep (no order changes a max):
// CHECK: %[[A:.*]] = llvm.intr.maximum(%{{.*}}, %{{.*}})
// CHECK-NEXT: %[[B:.*]] = llvm.intr.maximum(%{{.*}}, %{{.*}})
// CHECK-NEXT: %[[C:.*]] = llvm.intr.maximum(%{{.*}}, %{{.*}})
// CHECK-NEXT: %[[D:.*]] = llvm.intr.maximum(%{{.*}}, %{{.*}})
// CHECK-NEXT: %[[AB:.*]] = llvm.intr.maximum(%[[A]], %[[B]])
// CHECK-NEXT: %[[CD:.*]] = llvm.intr.maximum(%[[C]], %[[D]])
// CHECK-NEXT: llvm.intr.maximum(%[[AB]], %[[CD]])
// CHECK-COUNT-21: llvm.intr.maximum
// CHECK: llvm.mlir.constant(1 : i32)
// CHECK: nvvm.shfl.sync{{ +}}bfly
// CHECK-COUNT-3: nvvm.shfl.sync{{ +}}bfly
// CHECK: llvm.mlir.constant(2 : i32)
// CHECK: nvvm.shfl.sync{{ +}}bfly
// CHECK-COUNT-3: nvvm.shfl.sync{{ +}}bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK-COUNT-4: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK-COUNT-32: llvm.fsub
// CHECK-COUNT-32: llvm.store {{.*}} : f32, !llvm.ptr<1>
// CHECK-COUNT-3: llvm.fadd
// CHECK: llvm.mlir.constant(4 : i32)
// CHECK: nvvm.shfl.sync{{ +}}bfly
// CHECK: llvm.mlir.constant(8 : i32)
// CHECK: nvvm.shfl.sync{{ +}}bfly
// CHECK: llvm.mlir.constant(16 : i32)
// CHECK: nvvm.shfl.sync{{ +}}bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-2: llvm.load {{.*}} : !llvm.ptr<3> -> f32
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#rows = #tile.slice<dim = 1, parent = #mma>
#cols = #tile.slice<dim = 0, parent = #mma>

func.func @mma_rows(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %i = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #rows>
  %j = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #cols>
  %i2 = tile.expand_dims %i {axis = 1 : i32} : tensor<64xi32, #rows> -> tensor<64x1xi32, #mma>
  %j2 = tile.expand_dims %j {axis = 0 : i32} : tensor<64xi32, #cols> -> tensor<1x64xi32, #mma>
  %ib = tile.broadcast %i2 : tensor<64x1xi32, #mma> -> tensor<64x64xi32, #mma>
  %jb = tile.broadcast %j2 : tensor<1x64xi32, #mma> -> tensor<64x64xi32, #mma>
  %c64 = arith.constant dense<64> : tensor<64x64xi32, #mma>
  %row = arith.muli %ib, %c64 : tensor<64x64xi32, #mma>
  %off = arith.addi %row, %jb : tensor<64x64xi32, #mma>
  %xs = tile.splat %x : tensor<64x64x!tile.ptr<f32>, #mma>
  %p = tile.addptr %xs, %off : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xi32, #mma>
  %v = tile.load %p : tensor<64x64x!tile.ptr<f32>, #mma> -> tensor<64x64xf32, #mma>
  %m = tile.reduce max %v {axis = 1 : i32} : tensor<64x64xf32, #mma> -> tensor<64xf32, #rows>
  %m2 = tile.expand_dims %m {axis = 1 : i32} : tensor<64xf32, #rows> -> tensor<64x1xf32, #mma>
  %mb = tile.broadcast %m2 : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
  %d = arith.subf %v, %mb : tensor<64x64xf32, #mma>
  tile.store %p, %d : tensor<64x64x!tile.ptr<f32>, #mma>, tensor<64x64xf32, #mma>
  %t = tile.reduce sum %m {axis = 0 : i32} : tensor<64xf32, #rows> -> f32
  tile.store %y, %t : !tile.ptr<f32>, f32
  return
}

// -----

// A 16x16 tile on 4 warps that each hold all of it (warp bits are free variables): moving
// it to a layout that splits the rows over the warps goes through shared memory, and only
// warp 0 (the owner of every element) writes it -- one writer per address, so racecheck
// sees no unordered writes. Every thread then reads its part back after the barrier.
// CHECK-LABEL: llvm.func @replicated_exchange
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[WARP:.*]] = llvm.udiv %[[TID]]
// CHECK: %[[FREE:.*]] = llvm.and %[[WARP]], %{{.*}} : i32
// CHECK: %[[OWNER:.*]] = llvm.icmp "eq" %[[FREE]]
// CHECK: llvm.cond_br %[[OWNER]], ^[[WRITE:bb[0-9]+]], ^[[JOIN:bb[0-9]+]]
// CHECK: ^[[WRITE]]:
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.br ^[[JOIN]]
// CHECK: ^[[JOIN]]:
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> vector<2xf32>
#copies = #tile.blocked<sizePerThread = [2, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [1, 0]>
#split = #tile.blocked<sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @replicated_exchange(%x: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %v = arith.constant dense<1.0> : tensor<16x16xf32, #copies>
  %w = tile.convert_layout %v : tensor<16x16xf32, #copies> -> tensor<16x16xf32, #split>
  %s = tile.reduce sum %w {axis = 0 : i32} : tensor<16x16xf32, #split> -> tensor<16xf32, #tile.slice<dim = 0, parent = #split>>
  %t = tile.reduce sum %s {axis = 0 : i32} : tensor<16xf32, #tile.slice<dim = 0, parent = #split>> -> f32
  tile.store %x, %t : !tile.ptr<f32>, f32
  return
}
