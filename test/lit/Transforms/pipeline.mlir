// RUN: tile-opt %s -split-input-file --tile-assign-layouts --tile-coalesce --tile-accelerate-matmul --tile-remove-layout-conversions --tile-optimize-dot-operands --tile-pipeline | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-assign-layouts --tile-coalesce --tile-accelerate-matmul --tile-remove-layout-conversions --tile-optimize-dot-operands --tile-pipeline=num-stages=2 | FileCheck %s --check-prefix=S2
// RUN: tile-opt %s -split-input-file --tile-assign-layouts --tile-coalesce --tile-accelerate-matmul --tile-remove-layout-conversions --tile-optimize-dot-operands --tile-pipeline=num-stages=4 | FileCheck %s --check-prefix=S4
// RUN: tile-opt %s -split-input-file --tile-assign-layouts --tile-coalesce --tile-accelerate-matmul --tile-remove-layout-conversions --tile-optimize-dot-operands --tile-pipeline=num-stages=1 | FileCheck %s --check-prefix=OFF

// tile-pipeline turns a K loop's `tile.load -> tile.local_alloc -> tile.local_load` of dot
// operands into cp.async copies into rings of num-stages buffers, issued num-stages - 1
// iterations ahead. The inputs are traced tile IR; the passes before it give the
// layouts, the 16-byte vector widths and the local_alloc/local_load pairs it works on.
// Constants print with their value in their name (%c2_i32 is 2 : i32), which the checks
// use where the pass creates several constants in an order that C++ leaves unspecified
// (nested create calls as arguments of one call: GCC and Clang order them differently).

// num-stages=1 means off: no copies anywhere in this file, the loads stay.
// OFF-NOT: tile.async_copy
// OFF-NOT: tile.async_wait
// OFF-NOT: memdesc<{{[0-9]+}}x{{[0-9]+}}x{{[0-9]+}}x

// The library matmul's K loop (A [M, K], B [K, N] row-major, ragged K masked), the
// default three stages. Two rings (one per operand, the operand's swizzle, a leading
// stage dimension); a prologue that copies iterations 0 and 1 into buffers 0 and 1,
// one commit group per iteration, each copy masked by the load's own mask AND
// "iteration < upper bound"; in the loop: wait until one group is left in flight, refill
// buffer (j + 2) % 3 with iteration iv + 2 * step (address computation cloned with the
// advanced induction variable, masked by its in-range predicate), read buffer j % 3
// (j = (iv - lb) / step) where the loads were; wait for everything after the loop.
// CHECK-LABEL: func.func @matmul_k_loop
// CHECK-SAME: %[[K:[^:]*]]: i32 {tile.divisibility = 16 : i32}, %{{[^:]*}}: i32
// CHECK: %[[LB:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[STEP:.*]] = arith.constant 32 : i32
// CHECK-NOT: scf.for
// CHECK: %[[RA:.*]] = tile.local_alloc : () -> !tile.memdesc<3x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
// CHECK: %[[RB:.*]] = tile.local_alloc : () -> !tile.memdesc<3x32x64xf16, #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
//
// Prologue stage 0: iteration lb + 0 * step into buffer 0.
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK: %[[O0:.*]] = arith.muli %[[STEP]], %[[Z]] : i32
// CHECK: %[[IV0:.*]] = arith.addi %[[LB]], %[[O0]] : i32
// CHECK: %[[S0:.*]] = arith.constant 0 : i32
// CHECK: %[[IN0:.*]] = arith.cmpi slt, %[[IV0]], %[[K]] : i32
// CHECK: tile.splat %[[IV0]] : tensor<32xi32,
// CHECK: %[[PA0:.*]] = tile.addptr
// CHECK: %[[KA0:.*]] = arith.cmpi slt, %{{.*}} : tensor<64x32xi32,
// CHECK: %[[INA0:.*]] = tile.splat %[[IN0]] : tensor<64x32xi1,
// CHECK: %[[MA0:.*]] = arith.andi %[[KA0]], %[[INA0]] : tensor<64x32xi1,
// CHECK: %[[VA0:.*]] = tile.memdesc_index %[[RA]][%[[S0]]] : <3x64x32xf16, {{.*}}> -> <64x32xf16,
// CHECK: tile.async_copy %[[PA0]], %[[VA0]], %[[MA0]] {tile.vec = 8 : i32}
// CHECK: tile.splat %[[IV0]] : tensor<32xi32,
// CHECK: %[[PB0:.*]] = tile.addptr
// CHECK: %[[INB0:.*]] = tile.splat %[[IN0]] : tensor<32x64xi1,
// CHECK: %[[MB0:.*]] = arith.andi %{{.*}}, %[[INB0]] : tensor<32x64xi1,
// CHECK: %[[VB0:.*]] = tile.memdesc_index %[[RB]][%[[S0]]] : <3x32x64xf16, {{.*}}> -> <32x64xf16,
// CHECK: tile.async_copy %[[PB0]], %[[VB0]], %[[MB0]] {tile.vec = 8 : i32}
// CHECK: tile.async_commit_group
//
// Prologue stage 1: iteration lb + 1 * step into buffer 1.
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[O1:.*]] = arith.muli %[[STEP]], %[[ONE]] : i32
// CHECK: %[[IV1:.*]] = arith.addi %[[LB]], %[[O1]] : i32
// CHECK: %[[S1:.*]] = arith.constant 1 : i32
// CHECK: %[[IN1:.*]] = arith.cmpi slt, %[[IV1]], %[[K]] : i32
// CHECK: tile.splat %[[IV1]] : tensor<32xi32,
// CHECK: tile.splat %[[IN1]] : tensor<64x32xi1,
// CHECK: tile.memdesc_index %[[RA]][%[[S1]]]
// CHECK-NEXT: tile.async_copy
// CHECK: tile.splat %[[IN1]] : tensor<32x64xi1,
// CHECK: tile.memdesc_index %[[RB]][%[[S1]]]
// CHECK-NEXT: tile.async_copy
// CHECK-NEXT: tile.async_commit_group
//
// The loop.
// CHECK-NEXT: %[[ACC:.*]] = scf.for %[[IV:.*]] = %[[LB]] to %[[K]] step %[[STEP]] iter_args
// CHECK-NEXT: tile.async_wait {pending = 1 : i32}
// CHECK-NEXT: %[[D:.*]] = arith.subi %[[IV]], %[[LB]] : i32
// CHECK-NEXT: %[[J:.*]] = arith.divui %[[D]], %[[STEP]] : i32
// CHECK: %[[O2:.*]] = arith.muli %[[STEP]], %c2_i32{{(_[0-9]+)?}} : i32
// CHECK-NEXT: %[[AHEAD:.*]] = arith.addi %[[IV]], %[[O2]] : i32
// CHECK: %[[JA:.*]] = arith.addi %[[J]], %c2_i32{{(_[0-9]+)?}} : i32
// CHECK: %[[REFILL:.*]] = arith.remui %[[JA]], %c3_i32{{(_[0-9]+)?}} : i32
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[AHEAD]], %[[K]] : i32
// CHECK: tile.splat %[[AHEAD]] : tensor<32xi32,
// CHECK: %[[PA:.*]] = tile.addptr
// CHECK: %[[KA:.*]] = arith.cmpi slt, %{{.*}} : tensor<64x32xi32,
// CHECK: %[[INA:.*]] = tile.splat %[[IN]] : tensor<64x32xi1,
// CHECK: %[[MA:.*]] = arith.andi %[[KA]], %[[INA]] : tensor<64x32xi1,
// CHECK-NEXT: %[[VA:.*]] = tile.memdesc_index %[[RA]][%[[REFILL]]]
// CHECK-NEXT: tile.async_copy %[[PA]], %[[VA]], %[[MA]] {tile.vec = 8 : i32}
// CHECK: tile.splat %[[AHEAD]] : tensor<32xi32,
// CHECK: %[[PB:.*]] = tile.addptr
// CHECK: %[[INB:.*]] = tile.splat %[[IN]] : tensor<32x64xi1,
// CHECK: %[[MB:.*]] = arith.andi %{{.*}}, %[[INB]] : tensor<32x64xi1,
// CHECK-NEXT: %[[VB:.*]] = tile.memdesc_index %[[RB]][%[[REFILL]]]
// CHECK-NEXT: tile.async_copy %[[PB]], %[[VB]], %[[MB]] {tile.vec = 8 : i32}
// CHECK-NEXT: tile.async_commit_group
// CHECK: %[[SLOT:.*]] = arith.remui %[[J]], %c3_i32{{(_[0-9]+)?}} : i32
// CHECK-NEXT: %[[A:.*]] = tile.memdesc_index %[[RA]][%[[SLOT]]] : <3x64x32xf16, {{.*}}> -> <64x32xf16,
// CHECK-NEXT: %[[B:.*]] = tile.memdesc_index %[[RB]][%[[SLOT]]] : <3x32x64xf16, {{.*}}> -> <32x64xf16,
// CHECK-NOT: tile.load
// CHECK-NOT: tile.local_alloc
// CHECK-NOT: tile.async
// CHECK: %[[LA:.*]] = tile.local_load %[[A]] {offsets = array<i64: 0, 0>} : <64x32xf16, {{.*}}> -> tensor<64x16xf16, #dot_op>
// CHECK-NEXT: %[[LB2:.*]] = tile.local_load %[[B]] {offsets = array<i64: 0, 0>} : <32x64xf16, {{.*}}> -> tensor<16x64xf16, #dot_op1>
// CHECK-NEXT: %[[DOT0:.*]] = tile.dot %[[LA]], %[[LB2]], %{{.*}}
// CHECK-NEXT: %[[LA1:.*]] = tile.local_load %[[A]] {offsets = array<i64: 0, 16>}
// CHECK-NEXT: %[[LB1:.*]] = tile.local_load %[[B]] {offsets = array<i64: 16, 0>}
// CHECK-NEXT: %[[DOT:.*]] = tile.dot %[[LA1]], %[[LB1]], %[[DOT0]]
// CHECK-NEXT: scf.yield %[[DOT]]
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_wait {pending = 0 : i32}
// CHECK-NOT: tile.async
// CHECK: tile.store %{{.*}}, %{{.*}} {tile.vec = 4 : i32}
// CHECK-NEXT: return
//
// Two stages: one prologue group, the loop waits for everything (pending 0), refills
// buffer (j + 1) % 2 with iteration iv + step.
// S2-LABEL: func.func @matmul_k_loop
// S2: tile.local_alloc : () -> !tile.memdesc<2x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
// S2-NEXT: tile.local_alloc : () -> !tile.memdesc<2x32x64xf16, #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
// S2-COUNT-1: tile.async_commit_group
// S2-NEXT: scf.for %[[IV:[^ ]*]] =
// S2-NEXT: tile.async_wait {pending = 0 : i32}
// S2-NEXT: %[[D:.*]] = arith.subi %[[IV]]
// S2-NEXT: %[[J:.*]] = arith.divui %[[D]]
// S2: %[[O:.*]] = arith.muli %{{.*}}, %c1_i32{{(_[0-9]+)?}} : i32
// S2-NEXT: %[[AHEAD:.*]] = arith.addi %[[IV]], %[[O]] : i32
// S2: %[[JA:.*]] = arith.addi %[[J]], %c1_i32{{(_[0-9]+)?}} : i32
// S2: %[[REFILL:.*]] = arith.remui %[[JA]], %c2_i32{{(_[0-9]+)?}} : i32
// S2-NEXT: arith.cmpi slt, %[[AHEAD]]
// S2: tile.memdesc_index %{{.*}}[%[[REFILL]]]
// S2: tile.memdesc_index %{{.*}}[%[[REFILL]]]
// S2: tile.async_commit_group
// S2-NEXT: %{{.*}} = arith.constant 2 : i32
// S2-NEXT: %[[SLOT:.*]] = arith.remui %[[J]], %c2_i32{{(_[0-9]+)?}} : i32
// S2-NEXT: tile.memdesc_index %{{.*}}[%[[SLOT]]] : <2x64x32xf16
// S2-NEXT: tile.memdesc_index %{{.*}}[%[[SLOT]]] : <2x32x64xf16
// S2: scf.yield
// S2-NEXT: }
// S2-NEXT: tile.async_wait {pending = 0 : i32}
//
// Four stages: three prologue groups into buffers 0, 1, 2; two groups may stay in
// flight; refill buffer (j + 3) % 4 with iteration iv + 3 * step.
// S4-LABEL: func.func @matmul_k_loop
// S4: tile.local_alloc : () -> !tile.memdesc<4x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
// S4-NEXT: tile.local_alloc : () -> !tile.memdesc<4x32x64xf16, #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
// S4: arith.muli %{{.*}}, %c2_i32{{(_[0-9]+)?}} : i32
// S4-NEXT: arith.addi
// S4-NEXT: %[[STAGE2:.*]] = arith.constant 2 : i32
// S4-NEXT: arith.cmpi slt
// S4: tile.memdesc_index %{{.*}}[%[[STAGE2]]] : <4x64x32xf16
// S4: tile.memdesc_index %{{.*}}[%[[STAGE2]]] : <4x32x64xf16
// S4-NEXT: tile.async_copy
// S4-NEXT: tile.async_commit_group
// S4-NEXT: scf.for %[[IV:[^ ]*]] =
// S4-NEXT: tile.async_wait {pending = 2 : i32}
// S4-NEXT: %[[D:.*]] = arith.subi %[[IV]]
// S4-NEXT: %[[J:.*]] = arith.divui %[[D]]
// S4: %[[O:.*]] = arith.muli %{{.*}}, %c3_i32{{(_[0-9]+)?}} : i32
// S4-NEXT: %[[AHEAD:.*]] = arith.addi %[[IV]], %[[O]] : i32
// S4: %[[JA:.*]] = arith.addi %[[J]], %c3_i32{{(_[0-9]+)?}} : i32
// S4: %[[REFILL:.*]] = arith.remui %[[JA]], %c4_i32{{(_[0-9]+)?}} : i32
// S4-NEXT: arith.cmpi slt, %[[AHEAD]]
// S4: tile.memdesc_index %{{.*}}[%[[REFILL]]]
// S4: tile.memdesc_index %{{.*}}[%[[REFILL]]]
// S4: tile.async_commit_group
// S4: %[[SLOT:.*]] = arith.remui %[[J]], %c4_i32{{(_[0-9]+)?}} : i32
// S4-NEXT: tile.memdesc_index %{{.*}}[%[[SLOT]]] : <4x64x32xf16
// S4-NEXT: tile.memdesc_index %{{.*}}[%[[SLOT]]] : <4x32x64xf16
// S4: scf.yield
// S4-NEXT: }
// S4-NEXT: tile.async_wait {pending = 0 : i32}
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

// A function's tile.num_stages picks the stage count when the option does not.
// CHECK-LABEL: func.func @num_stages_attribute
// CHECK: tile.local_alloc : () -> !tile.memdesc<2x64x32xf16
// CHECK-NEXT: tile.local_alloc : () -> !tile.memdesc<2x32x64xf16
// CHECK-COUNT-1: tile.async_commit_group
// CHECK-NEXT: scf.for
// CHECK-NEXT: tile.async_wait {pending = 0 : i32}
// The option wins over the attribute.
// S4-LABEL: func.func @num_stages_attribute
// S4: tile.local_alloc : () -> !tile.memdesc<4x64x32xf16
module attributes {tile.target = "sm_90"} {
func.func @num_stages_attribute(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %k: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.num_stages = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %r64 = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r32 = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  // A [64, k] and B [k, 64], row-major; %pa0 / %pb0 point at the first K slice.
  %ar = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ks = tile.splat %k : tensor<64x1xi32>
  %arow = arith.muli %ar, %ks : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %ac = tile.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %acolb = tile.broadcast %ac : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %arowb, %acolb : tensor<64x32xi32>
  %pa = tile.splat %a : tensor<64x32x!tile.ptr<f16>>
  %pa0 = tile.addptr %pa, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %br = tile.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %s64 = tile.splat %c64 : tensor<32x1xi32>
  %brow = arith.muli %br, %s64 : tensor<32x1xi32>
  %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
  %bc = tile.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %bcolb = tile.broadcast %bc : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %browb, %bcolb : tensor<32x64xi32>
  %pb = tile.splat %b : tensor<32x64x!tile.ptr<f16>>
  %pb0 = tile.addptr %pb, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc1 = %acc0) -> (tensor<64x64xf32>) : i32 {
    %ka = tile.splat %k0 : tensor<64x32xi32>
    %qa = tile.addptr %pa0, %ka : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %ta = tile.load %qa : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
    %k64 = arith.muli %k0, %c64 : i32
    %kb = tile.splat %k64 : tensor<32x64xi32>
    %qb = tile.addptr %pb0, %kb : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %tb = tile.load %qb : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %ta, %tb, %acc1 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  // C [64, 64] row-major.
  %cr = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cs = tile.splat %c64 : tensor<64x1xi32>
  %crow = arith.muli %cr, %cs : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccolb = tile.broadcast %bc : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %ccolb : tensor<64x64xi32>
  %pc = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  %qc = tile.addptr %pc, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %qc, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}

// -----

// An `other` of zero is what a masked-off cp.async writes: still pipelined (a splat of a
// zero scalar here), the load's mask ANDed with the in-range predicate.
// CHECK-LABEL: func.func @zero_other
// CHECK: %[[RA:.*]] = tile.local_alloc : () -> !tile.memdesc<3x64x32xf16
// CHECK: %[[ALL:.*]] = arith.constant dense<true> : tensor<64x32xi1
// CHECK-NEXT: %[[IN:.*]] = tile.splat %{{.*}} : tensor<64x32xi1
// CHECK-NEXT: %[[M:.*]] = arith.andi %[[ALL]], %[[IN]]
// CHECK-NEXT: %[[V:.*]] = tile.memdesc_index %[[RA]]
// CHECK-NEXT: tile.async_copy %{{.*}}, %[[V]], %[[M]] {tile.vec = 8 : i32}
// CHECK: scf.for
// CHECK-NOT: tile.load
// CHECK: scf.yield
module attributes {tile.target = "sm_90"} {
func.func @zero_other(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %k: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %r64 = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r32 = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  // A [64, k] and B [k, 64], row-major; %pa0 / %pb0 point at the first K slice.
  %ar = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ks = tile.splat %k : tensor<64x1xi32>
  %arow = arith.muli %ar, %ks : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %ac = tile.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %acolb = tile.broadcast %ac : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %arowb, %acolb : tensor<64x32xi32>
  %pa = tile.splat %a : tensor<64x32x!tile.ptr<f16>>
  %pa0 = tile.addptr %pa, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %br = tile.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %s64 = tile.splat %c64 : tensor<32x1xi32>
  %brow = arith.muli %br, %s64 : tensor<32x1xi32>
  %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
  %bc = tile.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %bcolb = tile.broadcast %bc : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %browb, %bcolb : tensor<32x64xi32>
  %pb = tile.splat %b : tensor<32x64x!tile.ptr<f16>>
  %pb0 = tile.addptr %pb, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc1 = %acc0) -> (tensor<64x64xf32>) : i32 {
    %ka = tile.splat %k0 : tensor<64x32xi32>
    %qa = tile.addptr %pa0, %ka : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %all = arith.constant dense<true> : tensor<64x32xi1>
    %zero = arith.constant 0.0 : f16
    %zeros = tile.splat %zero : tensor<64x32xf16>
    %ta = tile.load %qa, %all, %zeros : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi1>, tensor<64x32xf16> -> tensor<64x32xf16>
    %k64 = arith.muli %k0, %c64 : i32
    %kb = tile.splat %k64 : tensor<32x64xi32>
    %qb = tile.addptr %pb0, %kb : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %tb = tile.load %qb : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %ta, %tb, %acc1 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  // C [64, 64] row-major.
  %cr = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cs = tile.splat %c64 : tensor<64x1xi32>
  %crow = arith.muli %cr, %cs : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccolb = tile.broadcast %bc : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %ccolb : tensor<64x64xi32>
  %pc = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  %qc = tile.addptr %pc, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %qc, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}

// -----

// An `other` of one cannot be a cp.async zero-fill: A stays a load (and its local_alloc
// in the loop), B is still pipelined.
// CHECK-LABEL: func.func @nonzero_other
// CHECK-NOT: memdesc<3x64x32xf16
// CHECK: %[[RB:.*]] = tile.local_alloc : () -> !tile.memdesc<3x32x64xf16
// CHECK-NOT: memdesc<3x64x32xf16
// CHECK: scf.for
// CHECK: tile.async_copy
// CHECK: tile.async_commit_group
// CHECK: %[[TA:.*]] = tile.load %{{.*}}, %{{.*}}, %{{.*}} {tile.vec = 8 : i32}
// CHECK: %[[MA:.*]] = tile.local_alloc %[[TA]] : (tensor<64x32xf16, #{{.*}}>) -> !tile.memdesc<64x32xf16
// CHECK-NEXT: tile.local_load %[[MA]]
// CHECK: scf.yield
module attributes {tile.target = "sm_90"} {
func.func @nonzero_other(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %k: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %r64 = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r32 = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  // A [64, k] and B [k, 64], row-major; %pa0 / %pb0 point at the first K slice.
  %ar = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ks = tile.splat %k : tensor<64x1xi32>
  %arow = arith.muli %ar, %ks : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %ac = tile.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %acolb = tile.broadcast %ac : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %arowb, %acolb : tensor<64x32xi32>
  %pa = tile.splat %a : tensor<64x32x!tile.ptr<f16>>
  %pa0 = tile.addptr %pa, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %br = tile.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %s64 = tile.splat %c64 : tensor<32x1xi32>
  %brow = arith.muli %br, %s64 : tensor<32x1xi32>
  %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
  %bc = tile.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %bcolb = tile.broadcast %bc : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %browb, %bcolb : tensor<32x64xi32>
  %pb = tile.splat %b : tensor<32x64x!tile.ptr<f16>>
  %pb0 = tile.addptr %pb, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc1 = %acc0) -> (tensor<64x64xf32>) : i32 {
    %ka = tile.splat %k0 : tensor<64x32xi32>
    %qa = tile.addptr %pa0, %ka : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %all = arith.constant dense<true> : tensor<64x32xi1>
    %ones = arith.constant dense<1.0> : tensor<64x32xf16>
    %ta = tile.load %qa, %all, %ones : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi1>, tensor<64x32xf16> -> tensor<64x32xf16>
    %k64 = arith.muli %k0, %c64 : i32
    %kb = tile.splat %k64 : tensor<32x64xi32>
    %qb = tile.addptr %pb0, %kb : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %tb = tile.load %qb : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %ta, %tb, %acc1 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  // C [64, 64] row-major.
  %cr = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cs = tile.splat %c64 : tensor<64x1xi32>
  %crow = arith.muli %cr, %cs : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccolb = tile.broadcast %bc : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %ccolb : tensor<64x64xi32>
  %pc = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  %qc = tile.addptr %pc, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %qc, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}

// -----

// A's pointers advance as a loop-carried value (the other common way to write a K loop):
// iteration j + 2's addresses cannot be computed from the induction variable, so A
// stays a load (the axis analysis knows nothing of loop-carried values either, so its
// accesses are scalar); B's come from the induction variable and are pipelined.
// CHECK-LABEL: func.func @loop_carried_pointer
// CHECK-NOT: memdesc<3x64x32xf16
// CHECK: %[[RB:.*]] = tile.local_alloc : () -> !tile.memdesc<3x32x64xf16
// CHECK-NOT: memdesc<3x64x32xf16
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[QA:.*]] = %{{.*}})
// CHECK: tile.async_copy
// CHECK: tile.async_commit_group
// CHECK: tile.memdesc_index %[[RB]]
// CHECK: %[[TA:.*]] = tile.load %[[QA]] {tile.vec = 1 : i32}
// CHECK: tile.local_alloc %[[TA]]
// CHECK: scf.yield
module attributes {tile.target = "sm_90"} {
func.func @loop_carried_pointer(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %k: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %r64 = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r32 = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  // A [64, k] and B [k, 64], row-major; %pa0 / %pb0 point at the first K slice.
  %ar = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ks = tile.splat %k : tensor<64x1xi32>
  %arow = arith.muli %ar, %ks : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %ac = tile.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %acolb = tile.broadcast %ac : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %arowb, %acolb : tensor<64x32xi32>
  %pa = tile.splat %a : tensor<64x32x!tile.ptr<f16>>
  %pa0 = tile.addptr %pa, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %br = tile.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %s64 = tile.splat %c64 : tensor<32x1xi32>
  %brow = arith.muli %br, %s64 : tensor<32x1xi32>
  %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
  %bc = tile.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %bcolb = tile.broadcast %bc : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %browb, %bcolb : tensor<32x64xi32>
  %pb = tile.splat %b : tensor<32x64x!tile.ptr<f16>>
  %pb0 = tile.addptr %pb, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %step = tile.splat %c32 : tensor<64x32xi32>
  %acc, %pa_end = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc1 = %acc0, %qa = %pa0) -> (tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>) : i32 {
    %ta = tile.load %qa : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
    %k64 = arith.muli %k0, %c64 : i32
    %kb = tile.splat %k64 : tensor<32x64xi32>
    %qb = tile.addptr %pb0, %kb : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %tb = tile.load %qb : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %ta, %tb, %acc1 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    %qa_next = tile.addptr %qa, %step : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    scf.yield %d, %qa_next : tensor<64x64xf32>, tensor<64x32x!tile.ptr<f16>>
  }
  // C [64, 64] row-major.
  %cr = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cs = tile.splat %c64 : tensor<64x1xi32>
  %crow = arith.muli %cr, %cs : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccolb = tile.broadcast %bc : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %ccolb : tensor<64x64xi32>
  %pc = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  %qc = tile.addptr %pc, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %qc, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}

// -----

// A's mask reads a loop-carried value (a bound passed through the loop): its accesses
// are still 16 bytes wide (the mask is uniform), but iteration j + 2's mask is not
// known at iteration j, so A stays a load; B is pipelined.
// CHECK-LABEL: func.func @loop_carried_mask
// CHECK-NOT: memdesc<3x64x32xf16
// CHECK: %[[RB:.*]] = tile.local_alloc : () -> !tile.memdesc<3x32x64xf16
// CHECK-NOT: memdesc<3x64x32xf16
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[LIM:.*]] = %{{.*}})
// CHECK: tile.async_copy
// CHECK: tile.async_commit_group
// CHECK: tile.memdesc_index %[[RB]]
// CHECK: tile.splat %[[LIM]] : tensor<64x32xi32
// CHECK: %[[TA:.*]] = tile.load %{{.*}}, %{{.*}} {tile.vec = 8 : i32}
// CHECK: tile.local_alloc %[[TA]]
// CHECK: scf.yield
module attributes {tile.target = "sm_90"} {
func.func @loop_carried_mask(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %k: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %r64 = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r32 = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  // A [64, k] and B [k, 64], row-major; %pa0 / %pb0 point at the first K slice.
  %ar = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ks = tile.splat %k : tensor<64x1xi32>
  %arow = arith.muli %ar, %ks : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %ac = tile.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %acolb = tile.broadcast %ac : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %arowb, %acolb : tensor<64x32xi32>
  %pa = tile.splat %a : tensor<64x32x!tile.ptr<f16>>
  %pa0 = tile.addptr %pa, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %br = tile.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %s64 = tile.splat %c64 : tensor<32x1xi32>
  %brow = arith.muli %br, %s64 : tensor<32x1xi32>
  %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
  %bc = tile.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %bcolb = tile.broadcast %bc : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %browb, %bcolb : tensor<32x64xi32>
  %pb = tile.splat %b : tensor<32x64x!tile.ptr<f16>>
  %pb0 = tile.addptr %pb, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc, %lim_end = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc1 = %acc0, %lim = %k) -> (tensor<64x64xf32>, i32) : i32 {
    %ka = tile.splat %k0 : tensor<64x32xi32>
    %qa = tile.addptr %pa0, %ka : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %k0s = tile.splat %k0 : tensor<64x32xi32>
    %lims = tile.splat %lim : tensor<64x32xi32>
    %ma = arith.cmpi slt, %k0s, %lims : tensor<64x32xi32>
    %ta = tile.load %qa, %ma : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi1> -> tensor<64x32xf16>
    %k64 = arith.muli %k0, %c64 : i32
    %kb = tile.splat %k64 : tensor<32x64xi32>
    %qb = tile.addptr %pb0, %kb : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %tb = tile.load %qb : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %ta, %tb, %acc1 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d, %lim : tensor<64x64xf32>, i32
  }
  // C [64, 64] row-major.
  %cr = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cs = tile.splat %c64 : tensor<64x1xi32>
  %crow = arith.muli %cr, %cs : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccolb = tile.broadcast %bc : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %ccolb : tensor<64x64xi32>
  %pc = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  %qc = tile.addptr %pc, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %qc, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}

// -----

// The matmul with a K of unknown divisibility: A's mask kk < k may change at any
// column, so A is read one f16 at a time, 2 bytes (cp.async moves 4, 8 or 16) and stays
// a load; B's mask is uniform along its rows of N (divisible by 16): B is pipelined.
// CHECK-LABEL: func.func @narrow_accesses
// CHECK-NOT: memdesc<3x64x32xf16
// CHECK: tile.local_alloc : () -> !tile.memdesc<3x32x64xf16
// CHECK-NOT: memdesc<3x64x32xf16
// CHECK: scf.for
// CHECK: tile.load %{{.*}}, %{{.*}} {tile.vec = 1 : i32} : tensor<64x32x!tile.ptr<f16>
// CHECK-NOT: tile.load
// CHECK: scf.yield
module attributes {tile.target = "sm_90"} {
func.func @narrow_accesses(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                         %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %k: i32,
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

// cp.async needs sm_80: for sm_75 nothing is pipelined (there the dot is not even
// staged through shared memory: no mma layouts before sm_80).
// CHECK-LABEL: func.func @sm_75
// CHECK-NOT: tile.async
// CHECK: tile.load
// CHECK-NOT: tile.async
// CHECK: tile.load
// CHECK-NOT: tile.async
// CHECK: return
module attributes {tile.target = "sm_75"} {
func.func @sm_75(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %k: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %r64 = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r32 = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  // A [64, k] and B [k, 64], row-major; %pa0 / %pb0 point at the first K slice.
  %ar = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ks = tile.splat %k : tensor<64x1xi32>
  %arow = arith.muli %ar, %ks : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %ac = tile.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %acolb = tile.broadcast %ac : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %arowb, %acolb : tensor<64x32xi32>
  %pa = tile.splat %a : tensor<64x32x!tile.ptr<f16>>
  %pa0 = tile.addptr %pa, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %br = tile.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %s64 = tile.splat %c64 : tensor<32x1xi32>
  %brow = arith.muli %br, %s64 : tensor<32x1xi32>
  %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
  %bc = tile.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %bcolb = tile.broadcast %bc : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %browb, %bcolb : tensor<32x64xi32>
  %pb = tile.splat %b : tensor<32x64x!tile.ptr<f16>>
  %pb0 = tile.addptr %pb, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc1 = %acc0) -> (tensor<64x64xf32>) : i32 {
    %ka = tile.splat %k0 : tensor<64x32xi32>
    %qa = tile.addptr %pa0, %ka : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %ta = tile.load %qa : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
    %k64 = arith.muli %k0, %c64 : i32
    %kb = tile.splat %k64 : tensor<32x64xi32>
    %qb = tile.addptr %pb0, %kb : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %tb = tile.load %qb : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %ta, %tb, %acc1 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  // C [64, 64] row-major.
  %cr = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cs = tile.splat %c64 : tensor<64x1xi32>
  %crow = arith.muli %cr, %cs : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccolb = tile.broadcast %bc : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %ccolb : tensor<64x64xi32>
  %pc = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  %qc = tile.addptr %pc, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %qc, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}

// -----

// No tile.target: no tensor cores or cp.async are assumed, nothing is pipelined.
// CHECK-LABEL: func.func @no_target
// CHECK-NOT: tile.async
// CHECK: tile.load
// CHECK-NOT: tile.async
// CHECK: tile.load
// CHECK-NOT: tile.async
// CHECK: return
module {
func.func @no_target(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
    %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %k: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %r64 = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r32 = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  // A [64, k] and B [k, 64], row-major; %pa0 / %pb0 point at the first K slice.
  %ar = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ks = tile.splat %k : tensor<64x1xi32>
  %arow = arith.muli %ar, %ks : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %ac = tile.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %acolb = tile.broadcast %ac : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %arowb, %acolb : tensor<64x32xi32>
  %pa = tile.splat %a : tensor<64x32x!tile.ptr<f16>>
  %pa0 = tile.addptr %pa, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %br = tile.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %s64 = tile.splat %c64 : tensor<32x1xi32>
  %brow = arith.muli %br, %s64 : tensor<32x1xi32>
  %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
  %bc = tile.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %bcolb = tile.broadcast %bc : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %browb, %bcolb : tensor<32x64xi32>
  %pb = tile.splat %b : tensor<32x64x!tile.ptr<f16>>
  %pb0 = tile.addptr %pb, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %acc0 = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k0 = %c0 to %k step %c32 iter_args(%acc1 = %acc0) -> (tensor<64x64xf32>) : i32 {
    %ka = tile.splat %k0 : tensor<64x32xi32>
    %qa = tile.addptr %pa0, %ka : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %ta = tile.load %qa : tensor<64x32x!tile.ptr<f16>> -> tensor<64x32xf16>
    %k64 = arith.muli %k0, %c64 : i32
    %kb = tile.splat %k64 : tensor<32x64xi32>
    %qb = tile.addptr %pb0, %kb : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %tb = tile.load %qb : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
    %d = tile.dot %ta, %tb, %acc1 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  // C [64, 64] row-major.
  %cr = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cs = tile.splat %c64 : tensor<64x1xi32>
  %crow = arith.muli %cr, %cs : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %ccolb = tile.broadcast %bc : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %ccolb : tensor<64x64xi32>
  %pc = tile.splat %c : tensor<64x64x!tile.ptr<f32>>
  %qc = tile.addptr %pc, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %qc, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}
