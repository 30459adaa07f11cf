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

// -----

// Layout propagation: a tensor-core result's #mma layout flows through the softmax-like
// body (reduction to a slice, elementwise, expand_dims + broadcast) and into the values the
// loop carries (a running row max, an accumulator), so the loop converts nothing; the
// carried values convert back once, after the loop, for the return.
// CHECK-DAG: #[[MMA:mma[0-9]*]] = #tile.mma<warpsPerCTA = [4, 1]>
// CHECK-DAG: #[[SL:slice[0-9]*]] = #tile.slice<dim = 1, parent = #[[MMA]]>
// CHECK-LABEL: func.func @propagate_through_loop
// CHECK: scf.for {{.*}} -> (tensor<64xf32, #[[SL]]>, tensor<64x64xf32, #[[MMA]]>)
// CHECK-NOT: tile.convert_layout
// CHECK: tile.reduce max %{{.*}} : tensor<64x64xf32, #[[MMA]]> -> tensor<64xf32, #[[SL]]>
// CHECK-NOT: tile.convert_layout
// CHECK: scf.yield {{.*}} : tensor<64xf32, #[[SL]]>, tensor<64x64xf32, #[[MMA]]>
// CHECK-DAG: tile.convert_layout {{.*}} -> tensor<64xf32, #blocked
// CHECK-DAG: tile.convert_layout {{.*}} -> tensor<64x64xf32, #blocked
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#opa = #tile.dot_operand<opIdx = 0, parent = #mma>
#opb = #tile.dot_operand<opIdx = 1, parent = #mma>
#blk = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#row = #tile.slice<dim = 1, parent = #blk>
#b1 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
func.func @propagate_through_loop(%a: tensor<64x16xf16, #opa>, %b: tensor<16x64xf16, #opb>, %n: i32) -> (tensor<64xf32, #b1>, tensor<64x64xf32, #blk>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %m0 = arith.constant dense<0.0> : tensor<64xf32, #b1>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32, #blk>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%m = %m0, %acc = %acc0) -> (tensor<64xf32, #b1>, tensor<64x64xf32, #blk>) : i32 {
    %s = tile.dot %a, %b, %zero : tensor<64x16xf16, #opa> * tensor<16x64xf16, #opb> -> tensor<64x64xf32, #mma>
    %sb = tile.convert_layout %s : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blk>
    %mx = tile.reduce max %sb {axis = 1 : i32} : tensor<64x64xf32, #blk> -> tensor<64xf32, #row>
    %mc = tile.convert_layout %m : tensor<64xf32, #b1> -> tensor<64xf32, #row>
    %mn = arith.maximumf %mc, %mx : tensor<64xf32, #row>
    %e = tile.expand_dims %mn {axis = 1 : i32} : tensor<64xf32, #row> -> tensor<64x1xf32, #blk>
    %eb = tile.broadcast %e : tensor<64x1xf32, #blk> -> tensor<64x64xf32, #blk>
    %p = arith.subf %sb, %eb : tensor<64x64xf32, #blk>
    %acc2 = arith.addf %acc, %p : tensor<64x64xf32, #blk>
    %mback = tile.convert_layout %mn : tensor<64xf32, #row> -> tensor<64xf32, #b1>
    scf.yield %mback, %acc2 : tensor<64xf32, #b1>, tensor<64x64xf32, #blk>
  }
  return %r#0, %r#1 : tensor<64xf32, #b1>, tensor<64x64xf32, #blk>
}

// -----

// Buffers: a buffer written from a conversion out of an accumulator layout is written from the
// accumulator itself (each thread its own registers; attention's dSᵀ staged as the next
// wgmma's b); from another layout the conversion stays (its write may be wider).
// CHECK-LABEL: func.func @buffer_from_accumulator
// CHECK-SAME: (%[[ACC:.*]]: tensor<128x64xf16, #mma>, %[[X:.*]]: tensor<128x64xf16, #{{.*}}>)
// CHECK-NEXT: %[[A:.*]] = tile.local_alloc %[[ACC]] : (tensor<128x64xf16, #mma>)
// CHECK-NEXT: %[[C:.*]] = tile.convert_layout %[[X]]
// CHECK-NEXT: %[[B:.*]] = tile.local_alloc %[[C]] : (tensor<128x64xf16, #blocked{{[0-9]*}}>)
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#other = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>
func.func @buffer_from_accumulator(%acc: tensor<128x64xf16, #mma>, %x: tensor<128x64xf16, #other>) -> (!tile.memdesc<128x64xf16, #tile.nvmma_shared<swizzle = 128>>, !tile.memdesc<128x64xf16, #tile.nvmma_shared<swizzle = 128>>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %c = tile.convert_layout %acc : tensor<128x64xf16, #mma> -> tensor<128x64xf16, #blocked>
  %a = tile.local_alloc %c : (tensor<128x64xf16, #blocked>) -> !tile.memdesc<128x64xf16, #tile.nvmma_shared<swizzle = 128>>
  %d = tile.convert_layout %x : tensor<128x64xf16, #other> -> tensor<128x64xf16, #blocked>
  %b = tile.local_alloc %d : (tensor<128x64xf16, #blocked>) -> !tile.memdesc<128x64xf16, #tile.nvmma_shared<swizzle = 128>>
  return %a, %b : !tile.memdesc<128x64xf16, #tile.nvmma_shared<swizzle = 128>>, !tile.memdesc<128x64xf16, #tile.nvmma_shared<swizzle = 128>>
}

// -----

// Replicated loads (fewer elements than threads, Triton's rule): a row of 64 broadcast over an
// accumulator's columns (every warp holds all 64, 16 registers a thread) is loaded whole in
// every warp (2 registers a thread, one 8-byte access) and shuffled there, where the
// conversion was: no round trip through scratch, no barrier. A column of 64 over its rows
// (2 registers a thread) is loaded in that layout itself. The load stays where it was (a
// store between it and the conversion would change what it reads).
// CHECK-DAG: #[[W:blocked[0-9]*]] = #tile.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
// CHECK-DAG: #[[COLS:slice[0-9]*]] = #tile.slice<dim = 0, parent = #mma>
// CHECK-DAG: #[[ROWS:slice[0-9]*]] = #tile.slice<dim = 1, parent = #mma>
// CHECK-DAG: #[[B1:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
// CHECK-LABEL: func.func @replicated_loads
// CHECK-NOT: tile.load {{.*}} -> tensor<64xf32, #[[B1]]>
// CHECK: %[[LROW:.*]] = tile.load %{{.*}} {tile.vec = 2 : i32} : tensor<64x!tile.ptr<f32>, #[[W]]> -> tensor<64xf32, #[[W]]>
// CHECK: %[[LCOL:.*]] = tile.load %{{.*}} {tile.vec = 1 : i32} : tensor<64x!tile.ptr<f32>, #[[ROWS]]> -> tensor<64xf32, #[[ROWS]]>
// CHECK: tile.store
// CHECK: %[[S:.*]] = arith.mulf %[[LROW]], %{{.*}} : tensor<64xf32, #[[W]]>
// CHECK-NEXT: tile.convert_layout %[[S]] : tensor<64xf32, #[[W]]> -> tensor<64xf32, #[[COLS]]>
// CHECK-NOT: tile.load
// CHECK-NOT: tile.convert_layout
// CHECK: return
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#b1 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
#cols = #tile.slice<dim = 0, parent = #mma>
#rows = #tile.slice<dim = 1, parent = #mma>
func.func @replicated_loads(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %q: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %x: tensor<64xf32, #b1>) -> (tensor<64xf32, #cols>, tensor<64xf32, #rows>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #b1>
  %ps = tile.splat %p : tensor<64x!tile.ptr<f32>, #b1>
  %pa = tile.addptr %ps, %r : tensor<64x!tile.ptr<f32>, #b1>, tensor<64xi32, #b1>
  %row = tile.load %pa {tile.vec = 1 : i32} : tensor<64x!tile.ptr<f32>, #b1> -> tensor<64xf32, #b1>
  %col = tile.load %pa {tile.vec = 1 : i32} : tensor<64x!tile.ptr<f32>, #b1> -> tensor<64xf32, #b1>
  %qs = tile.splat %q : tensor<64x!tile.ptr<f32>, #b1>
  %qa = tile.addptr %qs, %r : tensor<64x!tile.ptr<f32>, #b1>, tensor<64xi32, #b1>
  tile.store %qa, %x : tensor<64x!tile.ptr<f32>, #b1>, tensor<64xf32, #b1>
  %log2e = arith.constant dense<1.44269502> : tensor<64xf32, #b1>
  %scaled = arith.mulf %row, %log2e : tensor<64xf32, #b1>
  %c = tile.convert_layout %scaled : tensor<64xf32, #b1> -> tensor<64xf32, #cols>
  %k = tile.convert_layout %col : tensor<64xf32, #b1> -> tensor<64xf32, #rows>
  return %c, %k : tensor<64xf32, #cols>, tensor<64xf32, #rows>
}
