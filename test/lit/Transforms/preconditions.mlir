// Every pass runs alone on traced (layout-free) IR: the ones that take it work, the others
// fail with one diagnostic naming what they need and the step that provides it, at the first
// tensor without a layout (tile-coalesce and convert-tile-to-llvm used to crash).
// RUN: not tile-opt %s --tile-coalesce 2>&1 | FileCheck %s --check-prefix=COALESCE
// RUN: not tile-opt %s --tile-accelerate-matmul 2>&1 | FileCheck %s --check-prefix=ACCELERATE
// RUN: not tile-opt %s --tile-remove-layout-conversions 2>&1 | FileCheck %s --check-prefix=REMOVE
// RUN: not tile-opt %s --tile-optimize-dot-operands 2>&1 | FileCheck %s --check-prefix=DOTOPS
// RUN: not tile-opt %s --tile-pipeline 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not tile-opt %s --tile-warp-specialize 2>&1 | FileCheck %s --check-prefix=WARPSPEC
// RUN: not tile-opt %s --tile-tma-stores 2>&1 | FileCheck %s --check-prefix=TMA
// RUN: not tile-opt %s --tile-allocate-shared 2>&1 | FileCheck %s --check-prefix=ALLOCATE
// RUN: not tile-opt %s --tile-insert-barriers 2>&1 | FileCheck %s --check-prefix=BARRIERS
// RUN: not tile-opt %s --convert-tile-to-llvm 2>&1 | FileCheck %s --check-prefix=LLVM
//
// The passes for traced IR take it, and the GPU passes after tile-assign-layouts.
// RUN: tile-opt %s --tile-assign-layouts | FileCheck %s --check-prefix=LAYOUTS
// RUN: tile-opt %s --tile-assign-layouts --tile-coalesce --tile-accelerate-matmul --tile-remove-layout-conversions \
// RUN:   --tile-optimize-dot-operands --tile-warp-specialize --tile-pipeline --tile-tma-stores --tile-allocate-shared --tile-insert-barriers \
// RUN:   --convert-tile-to-llvm | FileCheck %s --check-prefix=LOWERED
// RUN: tile-opt %s --tile-lower-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: tile-opt %s --tile-cpu-expand-small-floats | FileCheck %s --check-prefix=SMALLFLOATS
//
// The CPU executor's lowering takes traced IR only: laid-out IR is refused the same way.
// RUN: not tile-opt %s --tile-assign-layouts --tile-lower-to-cpu 2>&1 | FileCheck %s --check-prefix=CPU-LAID-OUT
//
// An empty module goes through every pass.
// RUN: echo 'module {}' | tile-opt --tile-assign-layouts --tile-coalesce --tile-accelerate-matmul \
// RUN:   --tile-remove-layout-conversions --tile-optimize-dot-operands --tile-warp-specialize --tile-pipeline --tile-tma-stores \
// RUN:   --tile-allocate-shared --tile-insert-barriers --convert-tile-to-llvm | FileCheck %s --check-prefix=EMPTY
// RUN: echo 'module {}' | tile-opt --tile-lower-to-cpu --tile-cpu-expand-small-floats | FileCheck %s --check-prefix=EMPTY

// COALESCE:   preconditions.mlir:[[@LINE+23]]:11: error: tile-coalesce needs layouts: run --tile-assign-layouts first
// ACCELERATE: preconditions.mlir:[[@LINE+22]]:11: error: tile-accelerate-matmul needs layouts: run --tile-assign-layouts first
// REMOVE:     preconditions.mlir:[[@LINE+21]]:11: error: tile-remove-layout-conversions needs layouts: run --tile-assign-layouts first
// DOTOPS:     preconditions.mlir:[[@LINE+20]]:11: error: tile-optimize-dot-operands needs layouts: run --tile-assign-layouts first
// PIPELINE:   preconditions.mlir:[[@LINE+19]]:11: error: tile-pipeline needs layouts: run --tile-assign-layouts first
// WARPSPEC:   preconditions.mlir:[[@LINE+18]]:11: error: tile-warp-specialize needs layouts: run --tile-assign-layouts first
// TMA:        preconditions.mlir:[[@LINE+17]]:11: error: tile-tma-stores needs layouts: run --tile-assign-layouts first
// ALLOCATE:   preconditions.mlir:[[@LINE+16]]:11: error: tile-allocate-shared needs layouts: run --tile-assign-layouts first
// BARRIERS:   preconditions.mlir:[[@LINE+15]]:11: error: tile-insert-barriers needs layouts: run --tile-assign-layouts first
// LLVM:       preconditions.mlir:[[@LINE+14]]:11: error: convert-tile-to-llvm needs layouts: run --tile-assign-layouts first
// CPU-LAID-OUT: preconditions.mlir:[[@LINE+13]]:11: error: tile-lower-to-cpu takes traced IR without layouts, not the GPU passes' output
// LAYOUTS:     func.func @row_sums
// LAYOUTS:     tile.make_range {{.*}} : tensor<16xi32, #{{.*}}>
// LOWERED:     llvm.func @row_sums
// LOWERED-SAME: nvvm.kernel
// CPU:         func.func @row_sums(%{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i32
// CPU-NOT:     tile.
// SMALLFLOATS: func.func @row_sums
// EMPTY:       module {
// EMPTY-NEXT:  }
// A row of a 16 x 64 block: a reduction, a 2-D load (what tile-coalesce orders) and a 1-D store.
func.func @row_sums(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32})
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %rows = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %cols = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<16x1xi32>
  %rowStart = arith.muli %r2, %c64 : tensor<16x1xi32>
  %rb = tile.broadcast %rowStart : tensor<16x1xi32> -> tensor<16x64xi32>
  %cb = tile.broadcast %c2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %offsets = arith.addi %rb, %cb : tensor<16x64xi32>
  %xs = tile.splat %x : tensor<16x64x!tile.ptr<f32>>
  %p = tile.addptr %xs, %offsets : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  %v = tile.load %p : tensor<16x64x!tile.ptr<f32>> -> tensor<16x64xf32>
  %sums = tile.reduce sum %v {axis = 1 : i32} : tensor<16x64xf32> -> tensor<16xf32>
  %ys = tile.splat %y : tensor<16x!tile.ptr<f32>>
  %q = tile.addptr %ys, %rows : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  tile.store %q, %sums : tensor<16x!tile.ptr<f32>>, tensor<16xf32>
  return
}
