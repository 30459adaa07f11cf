// RUN: tile-opt %s -split-input-file --tile-optimize-dot-operands | FileCheck %s

// The inputs already carry the layouts tile-assign-layouts gives a tensor-core dot on
// sm_90 (blocked loads, dot_operand converts, an mma accumulator).

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// Both f16 operands of a dot: a (64x32, 32-element rows = 64 bytes: two rows per
// 128-byte phase, four phases) and b (32x64, 64-element rows = 128 bytes: one row per
// phase, eight phases) go through a local_alloc of the blocked tensor into a swizzled
// buffer of the same shape; the dot is then split along K into 16-wide slices, each
// reading its window of both buffers (local_load with offsets) just before its dot, in
// increasing k from the accumulator. No convert_layout is left.
// The dot_operand layouts stay aliases of the one mma parent.
// CHECK: #dot_op = #tile.dot_operand<opIdx = 0, parent = #mma>
// CHECK: #dot_op1 = #tile.dot_operand<opIdx = 1, parent = #mma>
// CHECK-LABEL: func.func @f16_operands
// CHECK-SAME: (%[[X:[^:]*]]: tensor<64x32xf16, #blocked>, %[[Y:[^:]*]]: tensor<32x64xf16, #blocked>
// CHECK-NOT: tile.convert_layout
// CHECK: %[[MA:.*]] = tile.local_alloc %[[X]] : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
// CHECK-NEXT: %[[MB:.*]] = tile.local_alloc %[[Y]] : (tensor<32x64xf16, #blocked>) -> !tile.memdesc<32x64xf16, #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
// CHECK-NEXT: %[[A0:.*]] = tile.local_load %[[MA]] {offsets = array<i64: 0, 0>} : <64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> tensor<64x16xf16, #dot_op>
// CHECK-NEXT: %[[B0:.*]] = tile.local_load %[[MB]] {offsets = array<i64: 0, 0>} : <32x64xf16, #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>> -> tensor<16x64xf16, #dot_op1>
// CHECK-NEXT: %[[D0:.*]] = tile.dot %[[A0]], %[[B0]], %[[ACC:[^ ]*]] : tensor<64x16xf16, #dot_op> * tensor<16x64xf16, #dot_op1> -> tensor<64x64xf32, #mma>
// CHECK-NEXT: %[[A1:.*]] = tile.local_load %[[MA]] {offsets = array<i64: 0, 16>}
// CHECK-NEXT: %[[B1:.*]] = tile.local_load %[[MB]] {offsets = array<i64: 16, 0>}
// CHECK-NEXT: tile.dot %[[A1]], %[[B1]], %[[D0]]
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @f16_operands(%x: tensor<64x32xf16, #blocked>, %y: tensor<32x64xf16, #blocked>, %acc: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
  %a = tile.convert_layout %x : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #dot_a>
  %b = tile.convert_layout %y : tensor<32x64xf16, #blocked> -> tensor<32x64xf16, #dot_b>
  %d = tile.dot %a, %b, %acc : tensor<64x32xf16, #dot_a> * tensor<32x64xf16, #dot_b> -> tensor<64x64xf32, #mma>
  return %d : tensor<64x64xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// bf16 takes the same path. a with 16-element rows (32 bytes: four rows share a
// phase, and the row has only two 16-byte chunks, so two phases); b with 128-element
// rows (256 bytes: one row per phase, maxPhase capped at the eight 16-byte bank groups).
// CHECK-LABEL: func.func @bf16_operands
// CHECK: %[[MA:.*]] = tile.local_alloc %{{.*}} : (tensor<64x16xbf16, #{{blocked[0-9]*}}>) -> !tile.memdesc<64x16xbf16, #tile.swizzled_shared<vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]>>
// CHECK-NEXT: %[[A:.*]] = tile.local_load %[[MA]] : <64x16xbf16, {{.*}}> -> tensor<64x16xbf16, #dot_op>
// CHECK-NEXT: %[[MB:.*]] = tile.local_alloc %{{.*}} : (tensor<16x128xbf16, #{{blocked[0-9]*}}>) -> !tile.memdesc<16x128xbf16, #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
// CHECK-NEXT: %[[B:.*]] = tile.local_load %[[MB]] : <16x128xbf16, {{.*}}> -> tensor<16x128xbf16, #dot_op1>
// CHECK-NEXT: tile.dot %[[A]], %[[B]]
func.func @bf16_operands(%x: tensor<64x16xbf16, #blocked1>, %y: tensor<16x128xbf16, #blocked>, %acc: tensor<64x128xf32, #mma>) -> tensor<64x128xf32, #mma> {
  %a = tile.convert_layout %x : tensor<64x16xbf16, #blocked1> -> tensor<64x16xbf16, #dot_a>
  %b = tile.convert_layout %y : tensor<16x128xbf16, #blocked> -> tensor<16x128xbf16, #dot_b>
  %d = tile.dot %a, %b, %acc : tensor<64x16xbf16, #dot_a> * tensor<16x128xbf16, #dot_b> -> tensor<64x128xf32, #mma>
  return %d : tensor<64x128xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// a's 16-element f16 rows swizzle like bf16's; rows of one 16-byte chunk (b is 16x8
// f16) leave nothing to permute: maxPhase = 1 (no swizzle), eight rows per phase.
// CHECK-LABEL: func.func @narrow_b
// CHECK: tile.local_alloc %{{.*}} : (tensor<16x16xf16, #{{blocked[0-9]*}}>) -> !tile.memdesc<16x16xf16, #tile.swizzled_shared<vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]>>
// CHECK: tile.local_alloc %{{.*}} : (tensor<16x8xf16, #{{blocked[0-9]*}}>) -> !tile.memdesc<16x8xf16, #tile.swizzled_shared<vec = 8, perPhase = 8, maxPhase = 1, order = [1, 0]>>
// CHECK-NEXT: tile.local_load %{{.*}} -> tensor<16x8xf16, #dot_op1>
func.func @narrow_b(%x: tensor<16x16xf16, #blocked>, %y: tensor<16x8xf16, #blocked1>, %acc: tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma> {
  %a = tile.convert_layout %x : tensor<16x16xf16, #blocked> -> tensor<16x16xf16, #dot_a>
  %b = tile.convert_layout %y : tensor<16x8xf16, #blocked1> -> tensor<16x8xf16, #dot_b>
  %d = tile.dot %a, %b, %acc : tensor<16x16xf16, #dot_a> * tensor<16x8xf16, #dot_b> -> tensor<16x8xf32, #mma>
  return %d : tensor<16x8xf32, #mma>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>

// f32 operands (a dot with TF32 input precision on tensor cores) are staged too, with
// 16-byte chunks of four elements swizzled; their local_load lowers to 32-bit loads.
// CHECK-LABEL: func.func @f32_staged
// CHECK: %[[M:.*]] = tile.local_alloc %{{.*}} : (tensor<64x32xf32, #blocked>) -> !tile.memdesc<64x32xf32, #tile.swizzled_shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]>>
// CHECK-NEXT: tile.local_load %[[M]] : {{.*}} -> tensor<64x32xf32, #dot_op>
// CHECK-NOT: tile.convert_layout
func.func @f32_staged(%x: tensor<64x32xf32, #blocked>) -> tensor<64x32xf32, #dot_a> {
  %a = tile.convert_layout %x : tensor<64x32xf32, #blocked> -> tensor<64x32xf32, #dot_a>
  return %a : tensor<64x32xf32, #dot_a>
}

// -----

#vecn = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#kfast = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]>
#scalar = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// f32 operand b (TF32): K-contiguous (column-major, order = [0, 1], the swizzle along K's
// 32 elements) when it arrives along K or one element at a time, so ldmatrix reads it as it
// reads a; row-major when it arrives in 16-byte vectors along N, which a K-contiguous
// buffer would split into single-element copies.
// CHECK-LABEL: func.func @tf32_b_orders
// CHECK: tile.local_alloc %{{.*}} : (tensor<32x64xf32, #blocked>) -> !tile.memdesc<32x64xf32, #tile.swizzled_shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]>>
// CHECK: tile.local_alloc %{{.*}} : (tensor<32x64xf32, #blocked1>) -> !tile.memdesc<32x64xf32, #tile.swizzled_shared<vec = 4, perPhase = 1, maxPhase = 8, order = [0, 1]>>
// CHECK: tile.local_alloc %{{.*}} : (tensor<32x64xf32, #blocked2>) -> !tile.memdesc<32x64xf32, #tile.swizzled_shared<vec = 4, perPhase = 1, maxPhase = 8, order = [0, 1]>>
func.func @tf32_b_orders(%v: tensor<32x64xf32, #vecn>, %k: tensor<32x64xf32, #kfast>, %s: tensor<32x64xf32, #scalar>)
    -> (tensor<32x64xf32, #dot_b>, tensor<32x64xf32, #dot_b>, tensor<32x64xf32, #dot_b>) {
  %a = tile.convert_layout %v : tensor<32x64xf32, #vecn> -> tensor<32x64xf32, #dot_b>
  %b = tile.convert_layout %k : tensor<32x64xf32, #kfast> -> tensor<32x64xf32, #dot_b>
  %c = tile.convert_layout %s : tensor<32x64xf32, #scalar> -> tensor<32x64xf32, #dot_b>
  return %a, %b, %c : tensor<32x64xf32, #dot_b>, tensor<32x64xf32, #dot_b>, tensor<32x64xf32, #dot_b>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>

// Converts into anything but a dot_operand stay what they are, f16 included: into
// another blocked layout, and from the mma accumulator into a blocked layout.
// CHECK-LABEL: func.func @other_converts_left_alone
// CHECK-NOT: tile.local_alloc
// CHECK: tile.convert_layout %{{.*}} : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked1>
// CHECK: tile.convert_layout %{{.*}} : tensor<64x32xf16, #mma> -> tensor<64x32xf16, #blocked>
// CHECK-NOT: tile.local_alloc
// CHECK: return
func.func @other_converts_left_alone(%x: tensor<64x32xf16, #blocked>, %y: tensor<64x32xf16, #mma>) -> (tensor<64x32xf16, #blocked1>, tensor<64x32xf16, #blocked>) {
  %a = tile.convert_layout %x : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked1>
  %b = tile.convert_layout %y : tensor<64x32xf16, #mma> -> tensor<64x32xf16, #blocked>
  return %a, %b : tensor<64x32xf16, #blocked1>, tensor<64x32xf16, #blocked>
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#dot_a = #tile.dot_operand<opIdx = 0, parent = #mma>
#dot_b = #tile.dot_operand<opIdx = 1, parent = #mma>

// Inside a K loop the operands are staged where their converts were: in the body, once
// per iteration (what tile-pipeline then turns into rings). The loop-carried accumulator
// stays in the mma layout.
// CHECK-LABEL: func.func @in_loop
// CHECK: scf.for
// CHECK: %[[A:.*]] = tile.load
// CHECK: %[[B:.*]] = tile.load
// CHECK: %[[MA:.*]] = tile.local_alloc %[[A]] : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16
// CHECK-NEXT: %[[MB:.*]] = tile.local_alloc %[[B]] : (tensor<32x64xf16, #blocked>) -> !tile.memdesc<32x64xf16
// CHECK-NEXT: tile.local_load %[[MA]] {offsets = array<i64: 0, 0>}
// CHECK-NEXT: tile.local_load %[[MB]] {offsets = array<i64: 0, 0>}
// CHECK-NEXT: %[[D0:.*]] = tile.dot
// CHECK-NEXT: tile.local_load %[[MA]] {offsets = array<i64: 0, 16>}
// CHECK-NEXT: tile.local_load %[[MB]] {offsets = array<i64: 16, 0>}
// CHECK-NEXT: %[[D:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[D0]]
// CHECK-NEXT: scf.yield %[[D]] : tensor<64x64xf32, #mma>
func.func @in_loop(%pa: tensor<64x32x!tile.ptr<f16>, #blocked>, %pb: tensor<32x64x!tile.ptr<f16>, #blocked>, %n: i32) -> tensor<64x64xf32, #mma> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<64x64xf32, #mma>) : i32 {
    %x = tile.load %pa : tensor<64x32x!tile.ptr<f16>, #blocked> -> tensor<64x32xf16, #blocked>
    %y = tile.load %pb : tensor<32x64x!tile.ptr<f16>, #blocked> -> tensor<32x64xf16, #blocked>
    %a = tile.convert_layout %x : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #dot_a>
    %b = tile.convert_layout %y : tensor<32x64xf16, #blocked> -> tensor<32x64xf16, #dot_b>
    %d = tile.dot %a, %b, %acc : tensor<64x32xf16, #dot_a> * tensor<32x64xf16, #dot_b> -> tensor<64x64xf32, #mma>
    scf.yield %d : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}
