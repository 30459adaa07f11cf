// RUN: tile-opt %s -split-input-file --tile-assign-layouts --tile-accelerate-matmul | FileCheck %s

// tile-accelerate-matmul moves the dots that fit mma.sync m16n8k16 (f16/bf16, sm_80+, whole
// instruction tiles for every warp) from assign-layouts' CUDA-core layouts to #tile.mma
// with #tile.dot_operand operands; the rest stay as they are.

// The K loop carries its accumulator in the mma layout: one conversion of the initial
// value before the loop, one of the result after it, none inside.
// CHECK-DAG: #[[MMA:mma[0-9]*]] = #tile.mma<warpsPerCTA = [2, 2]>
// CHECK-LABEL: func.func @matmul_k_loop
// CHECK: %[[INIT:.*]] = tile.convert_layout %{{.*}} : tensor<64x64xf32, #blocked{{[0-9]*}}> -> tensor<64x64xf32, #[[MMA]]>
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<64x64xf32, #[[MMA]]>)
// CHECK-NOT: tile.convert_layout {{.*}}#[[MMA]]
// CHECK: tile.convert_layout %{{.*}} -> tensor<64x32xf16, #dot_op>
// CHECK: tile.convert_layout %{{.*}} -> tensor<32x64xf16, #dot_op1>
// CHECK: %[[D:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[ACC]] : tensor<64x32xf16, #dot_op> * tensor<32x64xf16, #dot_op1> -> tensor<64x64xf32, #[[MMA]]>
// CHECK-NEXT: scf.yield %[[D]] : tensor<64x64xf32, #[[MMA]]>
// CHECK: tile.convert_layout %{{.*}} : tensor<64x64xf32, #[[MMA]]> -> tensor<64x64xf32, #blocked
module attributes {tile.target = "sm_90"} {
func.func @matmul_k_loop(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                         %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %k: i32 {tile.divisibility = 16 : i32},
                         %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %rm = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %rk = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  // Row offsets of A (rm * k) and column offsets of B (rn), fixed over the loop.
  %rm2 = tile.expand_dims %rm {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ks = tile.splat %k : tensor<64x1xi32>
  %arow = arith.muli %rm2, %ks : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %rn2 = tile.expand_dims %rm {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %bcolb = tile.broadcast %rn2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %pa = tile.splat %a : tensor<64x32x!tile.ptr<f16>>
  %pb = tile.splat %b : tensor<32x64x!tile.ptr<f16>>
  %acc = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc1 = %acc0) -> (tensor<64x64xf32>) : i32 {
    %k0s = tile.splat %k0 : tensor<32xi32>
    %kk = arith.addi %k0s, %rk : tensor<32xi32>
    // A tile: rm * k + kk, masked kk < k.
    %kk2 = tile.expand_dims %kk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
    %kkb = tile.broadcast %kk2 : tensor<1x32xi32> -> tensor<64x32xi32>
    %aoff = arith.addi %arowb, %kkb : tensor<64x32xi32>
    %qa = tile.addptr %pa, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %kl = tile.splat %k : tensor<64x32xi32>
    %ma = arith.cmpi slt, %kkb, %kl : tensor<64x32xi32>
    %ta = tile.load %qa, %ma : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi1> -> tensor<64x32xf16>
    // B tile: kk * n + rn, masked kk < k.
    %kc = tile.expand_dims %kk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %ns = tile.splat %n : tensor<32x1xi32>
    %brow = arith.muli %kc, %ns : tensor<32x1xi32>
    %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
    %boff = arith.addi %browb, %bcolb : tensor<32x64xi32>
    %qb = tile.addptr %pb, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %kcb = tile.broadcast %kc : tensor<32x1xi32> -> tensor<32x64xi32>
    %kl2 = tile.splat %k : tensor<32x64xi32>
    %mb = arith.cmpi slt, %kcb, %kl2 : tensor<32x64xi32>
    %tb = tile.load %qb, %mb : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi1> -> tensor<32x64xf16>
    %d = tile.dot %ta, %tb, %acc1 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  // Store C [64, 64] row-major with row stride n.
  %rm3 = tile.expand_dims %rm {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ns3 = tile.splat %n : tensor<64x1xi32>
  %crow = arith.muli %rm3, %ns3 : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %rn3 = tile.expand_dims %rm {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %ccolb = tile.broadcast %rn3 : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %ccolb : tensor<64x64xi32>
  %pc = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  %qc = tile.addptr %pc, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %qc, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}

// -----

// A tensor-core operand's load gets a layout fitted to its own shape: the default for
// rank 2 is sized for the 64x64 accumulator and would wrap a 64x16 tile (several threads
// loading the same elements). Its address tensor (pointer arithmetic over ranges) is
// converted (remove-layout-conversions then recomputes it in the fitted layout); B
// [16, 64] comes from a reshape, not a load, and is converted as it is.
// CHECK-DAG: #[[FIT:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: func.func @fitted_operand_load
// CHECK: %[[PA:.*]] = tile.convert_layout %{{.*}} : tensor<64x16x!tile.ptr<f16>, #{{.*}}> -> tensor<64x16x!tile.ptr<f16>, #[[FIT]]>
// CHECK: %[[VA:.*]] = tile.load %[[PA]] : tensor<64x16x!tile.ptr<f16>, #[[FIT]]> -> tensor<64x16xf16, #[[FIT]]>
// CHECK: %[[OA:.*]] = tile.convert_layout %[[VA]] : tensor<64x16xf16, #[[FIT]]> -> tensor<64x16xf16, #dot_op>
// CHECK: tile.dot %[[OA]], %{{.*}} : tensor<64x16xf16, #dot_op> * tensor<16x64xf16, #dot_op1> -> tensor<64x64xf32, #mma>
module attributes {tile.target = "sm_90"} {
func.func @fitted_operand_load(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %rm = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %rk = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %c16 = arith.constant 16 : i32
  %m2 = tile.expand_dims %rm {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %s16 = tile.splat %c16 : tensor<64x1xi32>
  %row = arith.muli %m2, %s16 : tensor<64x1xi32>
  %rowb = tile.broadcast %row : tensor<64x1xi32> -> tensor<64x16xi32>
  %k2 = tile.expand_dims %rk {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %kb = tile.broadcast %k2 : tensor<1x16xi32> -> tensor<64x16xi32>
  %offa = arith.addi %rowb, %kb : tensor<64x16xi32>
  %pa0 = tile.splat %a : tensor<64x16x!tile.ptr<f16>>
  %pa = tile.addptr %pa0, %offa : tensor<64x16x!tile.ptr<f16>>, tensor<64x16xi32>
  %va = tile.load %pa : tensor<64x16x!tile.ptr<f16>> -> tensor<64x16xf16>
  %rn = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %pb0 = tile.splat %a : tensor<1024x!tile.ptr<f16>>
  %pb = tile.addptr %pb0, %rn : tensor<1024x!tile.ptr<f16>>, tensor<1024xi32>
  %vb1 = tile.load %pb : tensor<1024x!tile.ptr<f16>> -> tensor<1024xf16>
  %vb = tile.reshape %vb1 : tensor<1024xf16> -> tensor<16x64xf16>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %va, %vb, %acc : tensor<64x16xf16> * tensor<16x64xf16> -> tensor<64x64xf32>
  %dr = tile.reshape %d : tensor<64x64xf32> -> tensor<4096xf32>
  %r4 = tile.make_range {start = 0 : i32, end = 4096 : i32} : tensor<4096xi32>
  %pc0 = tile.splat %c : tensor<4096x!tile.ptr<f32>>
  %pc = tile.addptr %pc0, %r4 : tensor<4096x!tile.ptr<f32>>, tensor<4096xi32>
  tile.store %pc, %dr : tensor<4096x!tile.ptr<f32>>, tensor<4096xf32>
  return
}
}

// -----

// f32 operands (exact FMA by default), a target without mma.sync (sm_75) and a tile too
// small to give each of 4 warps a 16 x 8 instruction tile keep the CUDA-core layouts
// (the TF32 case between them moves).
// CHECK-LABEL: func.func @f32_dot
// CHECK-NOT: #mma
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #blocked
module attributes {tile.target = "sm_90"} {
func.func @f32_dot(%a: !tile.ptr<f32>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pa = tile.splat %a : tensor<64x64x!tile.ptr<f32>>
  %va = tile.load %pa : tensor<64x64x!tile.ptr<f32>> -> tensor<64x64xf32>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %va, %va, %acc : tensor<64x64xf32> * tensor<64x64xf32> -> tensor<64x64xf32>
  %pc = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}

// -----

// f32 operands with TF32 input precision go to tensor cores (mma.sync m16n8k8).
// CHECK-LABEL: func.func @tf32_dot
// CHECK: tile.dot {{.*}} {input_precision = #tile.input_precision<TF32>} : tensor<64x64xf32, #dot_op> * tensor<64x64xf32, #dot_op1> -> tensor<64x64xf32, #mma>
module attributes {tile.target = "sm_90"} {
func.func @tf32_dot(%a: !tile.ptr<f32>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pa = tile.splat %a : tensor<64x64x!tile.ptr<f32>>
  %va = tile.load %pa : tensor<64x64x!tile.ptr<f32>> -> tensor<64x64xf32>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %va, %va, %acc {input_precision = #tile.input_precision<TF32>} : tensor<64x64xf32> * tensor<64x64xf32> -> tensor<64x64xf32>
  %pc = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}

// -----

// CHECK-LABEL: func.func @sm75_dot
// CHECK-NOT: #mma
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #blocked
module attributes {tile.target = "sm_75"} {
func.func @sm75_dot(%a: !tile.ptr<f16>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pa = tile.splat %a : tensor<64x64x!tile.ptr<f16>>
  %va = tile.load %pa : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
  %acc = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %va, %va, %acc : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
  %pc = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}

// -----

// CHECK-LABEL: func.func @small_dot
// CHECK-NOT: #mma
// CHECK: tile.dot {{.*}} -> tensor<16x8xf32, #blocked
module attributes {tile.target = "sm_90"} {
func.func @small_dot(%a: !tile.ptr<f16>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pa = tile.splat %a : tensor<16x16x!tile.ptr<f16>>
  %va = tile.load %pa : tensor<16x16x!tile.ptr<f16>> -> tensor<16x16xf16>
  %pb = tile.splat %a : tensor<16x8x!tile.ptr<f16>>
  %vb = tile.load %pb : tensor<16x8x!tile.ptr<f16>> -> tensor<16x8xf16>
  %acc = arith.constant dense<0.0> : tensor<16x8xf32>
  %d = tile.dot %va, %vb, %acc : tensor<16x16xf16> * tensor<16x8xf16> -> tensor<16x8xf32>
  %pc = tile.splat %c : tensor<16x8x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<16x8x!tile.ptr<f32>>, tensor<16x8xf32>
  return
}
}

// -----

// sm_90a: an f16 dot whose rows give each warpgroup (4 warps) whole 64-row slabs becomes
// tile.warpgroup_dot (wgmma) reading both operands from #tile.nvmma_shared buffers, with
// the widest swizzle their rows fill (A: 32 f16 = 64 bytes, B: 128 f16 = 2 x 128 bytes);
// the accumulator takes #tile.mma with all warps along M.
// CHECK-LABEL: func.func @wgmma_dot
// CHECK: %[[A:.*]] = tile.local_alloc %{{.*}} : (tensor<128x32xf16, #blocked{{[0-9]*}}>) -> !tile.memdesc<128x32xf16, #tile.nvmma_shared<swizzle = 64>>
// CHECK: %[[B:.*]] = tile.local_alloc %{{.*}} : (tensor<32x128xf16, #blocked{{[0-9]*}}>) -> !tile.memdesc<32x128xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK: tile.warpgroup_dot %[[A]], %[[B]], %{{.*}} : <128x32xf16, #tile.nvmma_shared<swizzle = 64>> * <32x128xf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<128x128xf32, #mma>
// CHECK-NOT: tile.dot %
module attributes {tile.target = "sm_90a"} {
func.func @wgmma_dot(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %pa = tile.splat %a : tensor<128x32x!tile.ptr<f16>>
  %va = tile.load %pa : tensor<128x32x!tile.ptr<f16>> -> tensor<128x32xf16>
  %pb = tile.splat %b : tensor<32x128x!tile.ptr<f16>>
  %vb = tile.load %pb : tensor<32x128x!tile.ptr<f16>> -> tensor<32x128xf16>
  %acc = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %va, %vb, %acc : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>
  %pc = tile.splat %c : tensor<128x128x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xf32>
  return
}
}

// -----

// wgmma only on sm_90a and only where the warpgroups tile M: plain sm_90 (llc aborts on
// wgmma there), 32 rows for 4 warps (a warpgroup's slab is 64 rows), and N above one
// instruction's 256 keep mma.sync.
// CHECK-LABEL: func.func @no_wgmma_on_plain_sm90
// CHECK-NOT: tile.warpgroup_dot
// CHECK: tile.dot {{.*}} -> tensor<128x128xf32, #mma
module attributes {tile.target = "sm_90"} {
func.func @no_wgmma_on_plain_sm90(%a: !tile.ptr<f16>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pa = tile.splat %a : tensor<128x128x!tile.ptr<f16>>
  %va = tile.load %pa : tensor<128x128x!tile.ptr<f16>> -> tensor<128x128xf16>
  %acc = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %va, %va, %acc : tensor<128x128xf16> * tensor<128x128xf16> -> tensor<128x128xf32>
  %pc = tile.splat %c : tensor<128x128x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xf32>
  return
}
}

// -----

// CHECK-LABEL: func.func @no_wgmma_for_32_rows
// CHECK-NOT: tile.warpgroup_dot
// CHECK: tile.dot {{.*}} -> tensor<32x64xf32, #mma
module attributes {tile.target = "sm_90a"} {
func.func @no_wgmma_for_32_rows(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pa = tile.splat %a : tensor<32x64x!tile.ptr<f16>>
  %va = tile.load %pa : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
  %pb = tile.splat %b : tensor<64x64x!tile.ptr<f16>>
  %vb = tile.load %pb : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
  %acc = arith.constant dense<0.0> : tensor<32x64xf32>
  %d = tile.dot %va, %vb, %acc : tensor<32x64xf16> * tensor<64x64xf16> -> tensor<32x64xf32>
  %pc = tile.splat %c : tensor<32x64x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<32x64x!tile.ptr<f32>>, tensor<32x64xf32>
  return
}
}

// -----

// CHECK-LABEL: func.func @no_wgmma_above_n256
// CHECK-NOT: tile.warpgroup_dot
// CHECK: tile.dot {{.*}} -> tensor<64x512xf32, #mma
module attributes {tile.target = "sm_90a"} {
func.func @no_wgmma_above_n256(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pa = tile.splat %a : tensor<64x16x!tile.ptr<f16>>
  %va = tile.load %pa : tensor<64x16x!tile.ptr<f16>> -> tensor<64x16xf16>
  %pb = tile.splat %b : tensor<16x512x!tile.ptr<f16>>
  %vb = tile.load %pb : tensor<16x512x!tile.ptr<f16>> -> tensor<16x512xf16>
  %acc = arith.constant dense<0.0> : tensor<64x512xf32>
  %d = tile.dot %va, %vb, %acc : tensor<64x16xf16> * tensor<16x512xf16> -> tensor<64x512xf32>
  %pc = tile.splat %c : tensor<64x512x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<64x512x!tile.ptr<f32>>, tensor<64x512xf32>
  return
}
}

// -----

// sm_90a: a TF32 dot whose b is the transpose of a [N, K] tile runs on wgmma: bt is written
// as it is (K contiguous, 32 f32 = 128 bytes) and read through a transposed view, K-major,
// the only order wgmma reads tf32 in. a [M, K] is K-major as it stands.
// CHECK-LABEL: func.func @wgmma_tf32_bt
// CHECK: %[[A:.*]] = tile.local_alloc %{{.*}} : (tensor<128x32xf32, #blocked{{[0-9]*}}>) -> !tile.memdesc<128x32xf32, #tile.nvmma_shared<swizzle = 128>>
// CHECK: %[[BT:.*]] = tile.local_alloc %{{.*}} : (tensor<256x32xf32, #blocked{{[0-9]*}}>) -> !tile.memdesc<256x32xf32, #tile.nvmma_shared<swizzle = 128>>
// CHECK: %[[B:.*]] = tile.memdesc_trans %[[BT]] : <256x32xf32, #tile.nvmma_shared<swizzle = 128>> -> <32x256xf32, #tile.nvmma_shared<swizzle = 128, transposed = true>>
// CHECK: tile.warpgroup_dot %[[A]], %[[B]], %{{.*}} -> tensor<128x256xf32, #mma>
// CHECK-NOT: tile.trans
// CHECK-NOT: tile.dot %
module attributes {tile.target = "sm_90a"} {
func.func @wgmma_tf32_bt(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %pa = tile.splat %a : tensor<128x32x!tile.ptr<f32>>
  %va = tile.load %pa : tensor<128x32x!tile.ptr<f32>> -> tensor<128x32xf32>
  %pb = tile.splat %b : tensor<256x32x!tile.ptr<f32>>
  %vbt = tile.load %pb : tensor<256x32x!tile.ptr<f32>> -> tensor<256x32xf32>
  %vb = tile.trans %vbt {order = array<i32: 1, 0>} : tensor<256x32xf32> -> tensor<32x256xf32>
  %acc = arith.constant dense<0.0> : tensor<128x256xf32>
  %d = tile.dot %va, %vb, %acc {input_precision = #tile.input_precision<TF32>} : tensor<128x32xf32> * tensor<32x256xf32> -> tensor<128x256xf32>
  %pc = tile.splat %c : tensor<128x256x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<128x256x!tile.ptr<f32>>, tensor<128x256xf32>
  return
}
}

// -----

// An f16 dot reads a transposed operand through a transposed view of its source's buffer: b
// K-major as TF32's, a MN-major (wgmma reads 16-bit operands either way). A second dot
// reading the same source untransposed (b = at) shares its buffer: one copy, two views.
// CHECK-LABEL: func.func @wgmma_f16_transposed_operands
// CHECK: %[[AT:.*]] = tile.local_alloc %{{.*}} : (tensor<32x128xf16, {{.*}}>) -> !tile.memdesc<32x128xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK: %[[A:.*]] = tile.memdesc_trans %[[AT]] : {{.*}} -> <128x32xf16, #tile.nvmma_shared<swizzle = 128, transposed = true>>
// CHECK: %[[BT:.*]] = tile.local_alloc %{{.*}} -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
// CHECK: %[[B:.*]] = tile.memdesc_trans %[[BT]] : {{.*}} -> <32x64xf16, #tile.nvmma_shared<swizzle = 64, transposed = true>>
// CHECK: tile.warpgroup_dot %[[A]], %[[B]], %{{.*}} -> tensor<128x64xf32, #mma>
// CHECK-NOT: tile.local_alloc
// CHECK: %[[A2:.*]] = tile.memdesc_trans %[[AT]]
// CHECK: tile.warpgroup_dot %[[A2]], %[[AT]], %{{.*}} -> tensor<128x128xf32, #mma>
// CHECK-NOT: tile.trans
module attributes {tile.target = "sm_90a"} {
func.func @wgmma_f16_transposed_operands(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %pa = tile.splat %a : tensor<32x128x!tile.ptr<f16>>
  %vat = tile.load %pa : tensor<32x128x!tile.ptr<f16>> -> tensor<32x128xf16>
  %va = tile.trans %vat {order = array<i32: 1, 0>} : tensor<32x128xf16> -> tensor<128x32xf16>
  %pb = tile.splat %b : tensor<64x32x!tile.ptr<f16>>
  %vbt = tile.load %pb : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
  %vb = tile.trans %vbt {order = array<i32: 1, 0>} : tensor<64x32xf16> -> tensor<32x64xf16>
  %acc = arith.constant dense<0.0> : tensor<128x64xf32>
  %d = tile.dot %va, %vb, %acc : tensor<128x32xf16> * tensor<32x64xf16> -> tensor<128x64xf32>
  %pc = tile.splat %c : tensor<128x64x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<128x64x!tile.ptr<f32>>, tensor<128x64xf32>
  %acc2 = arith.constant dense<0.0> : tensor<128x128xf32>
  %e = tile.dot %va, %vat, %acc2 : tensor<128x32xf16> * tensor<32x128xf16> -> tensor<128x128xf32>
  %pe = tile.splat %c : tensor<128x128x!tile.ptr<f32>>
  tile.store %pe, %e : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xf32>
  return
}
}

// -----

// TF32 stays on mma.sync where wgmma cannot read it K-major: b row-major [K, N] (N contiguous).
// CHECK-LABEL: func.func @tf32_row_major_b_keeps_mma_sync
// CHECK-NOT: tile.warpgroup_dot
// CHECK: tile.dot {{.*}} -> tensor<128x128xf32, #mma
module attributes {tile.target = "sm_90a"} {
func.func @tf32_row_major_b_keeps_mma_sync(%a: !tile.ptr<f32>, %b: !tile.ptr<f32>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %pa = tile.splat %a : tensor<128x32x!tile.ptr<f32>>
  %va = tile.load %pa : tensor<128x32x!tile.ptr<f32>> -> tensor<128x32xf32>
  %pb = tile.splat %b : tensor<32x128x!tile.ptr<f32>>
  %vb = tile.load %pb : tensor<32x128x!tile.ptr<f32>> -> tensor<32x128xf32>
  %acc = arith.constant dense<0.0> : tensor<128x128xf32>
  %d = tile.dot %va, %vb, %acc {input_precision = #tile.input_precision<TF32>} : tensor<128x32xf32> * tensor<32x128xf32> -> tensor<128x128xf32>
  %pc = tile.splat %c : tensor<128x128x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xf32>
  return
}
}

// -----

// sm_90a, attention's two products: a computed in registers inside the loop (P =
// exp2(S), cast to f16) takes wgmma's register form, converted to #tile.dot_operand<0, mma>
// (no buffer for it); b (V) is still a buffer. Q, loaded once before the loop, is a loaded a
// and keeps its buffer, written once before the loop, not every iteration; K, loaded in
// the loop, is written where it is.
// CHECK-LABEL: func.func @wgmma_register_a
// CHECK: %[[Q:.*]] = tile.load
// CHECK: %[[QB:.*]] = tile.local_alloc %[[Q]] : (tensor<64x64xf16, #blocked{{[0-9]*}}>) -> !tile.memdesc<64x64xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK: scf.for
// CHECK: %[[K:.*]] = tile.load
// CHECK: %[[KB:.*]] = tile.local_alloc %[[K]]
// CHECK: tile.warpgroup_dot %[[QB]], %[[KB]], %{{.*}} : <64x64xf16, #tile.nvmma_shared<swizzle = 128>> * <64x64xf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<64x64xf32, #mma>
// CHECK: %[[P:.*]] = arith.truncf
// CHECK: %[[PA:.*]] = tile.convert_layout %[[P]] : tensor<64x64xf16, #blocked{{[0-9]*}}> -> tensor<64x64xf16, #dot_op>
// CHECK-NOT: tile.local_alloc %[[P]]
// CHECK: %[[VB:.*]] = tile.local_alloc %{{.*}} -> !tile.memdesc<64x64xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK: tile.warpgroup_dot %[[PA]], %[[VB]], %{{.*}} : tensor<64x64xf16, #dot_op> * <64x64xf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<64x64xf32, #mma>
// CHECK: scf.yield
module attributes {tile.target = "sm_90a"} {
func.func @wgmma_register_a(%q: !tile.ptr<f16>, %k: !tile.ptr<f16>, %v: !tile.ptr<f16>, %o: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %pq = tile.splat %q : tensor<64x64x!tile.ptr<f16>>
  %vq = tile.load %pq : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %pk = tile.splat %k : tensor<64x64x!tile.ptr<f16>>
  %pv = tile.splat %v : tensor<64x64x!tile.ptr<f16>>
  %acc = scf.for %i = %c0 to %n step %c64 iter_args(%acc1 = %zero) -> (tensor<64x64xf32>) : i32 {
    %vk = tile.load %pk : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
    %s = tile.dot %vq, %vk, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %e = math.exp2 %s : tensor<64x64xf32>
    %p = arith.truncf %e : tensor<64x64xf32> to tensor<64x64xf16>
    %vv = tile.load %pv : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
    %d = tile.dot %p, %vv, %acc1 : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %po = tile.splat %o : tensor<64x64x!tile.ptr<f32>>
  tile.store %po, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}

// -----

// An a computed before the loop (loop-invariant) is written once to a buffer before the
// outermost loop it does not change in, not held in registers through it nor written every
// iteration; with no loop around it, a computed a takes the register form.
// CHECK-LABEL: func.func @wgmma_invariant_computed_a
// CHECK: %[[A:.*]] = arith.truncf
// CHECK: %[[AB:.*]] = tile.local_alloc %[[A]] : {{.*}} -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: tile.local_alloc %[[A]]
// CHECK: tile.warpgroup_dot %[[AB]], %{{.*}}, %{{.*}} : <64x32xf16, #tile.nvmma_shared<swizzle = 64>> * <32x64xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK: scf.yield
// CHECK: scf.yield
// CHECK: %[[R:.*]] = tile.convert_layout %[[A]] : {{.*}} -> tensor<64x32xf16, #dot_op>
// CHECK: tile.warpgroup_dot %[[R]], %{{.*}}, %{{.*}} : tensor<64x32xf16, #dot_op> * <32x64xf16, #tile.nvmma_shared<swizzle = 128>>
module attributes {tile.target = "sm_90a"} {
func.func @wgmma_invariant_computed_a(%a: !tile.ptr<f32>, %b: !tile.ptr<f16>, %o: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %pa = tile.splat %a : tensor<64x32x!tile.ptr<f32>>
  %va32 = tile.load %pa : tensor<64x32x!tile.ptr<f32>> -> tensor<64x32xf32>
  %va = arith.truncf %va32 : tensor<64x32xf32> to tensor<64x32xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %pb = tile.splat %b : tensor<32x64x!tile.ptr<f16>>
  %acc = scf.for %i = %c0 to %n step %c32 iter_args(%acc1 = %zero) -> (tensor<64x64xf32>) : i32 {
    %acc2 = scf.for %j = %c0 to %n step %c32 iter_args(%acc3 = %acc1) -> (tensor<64x64xf32>) : i32 {
      %vb = tile.load %pb : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
      %d = tile.dot %va, %vb, %acc3 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    }
    scf.yield %acc2 : tensor<64x64xf32>
  }
  %vb2 = tile.load %pb : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
  %d2 = tile.dot %va, %vb2, %acc : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %po = tile.splat %o : tensor<64x64x!tile.ptr<f32>>
  tile.store %po, %d2 : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}
