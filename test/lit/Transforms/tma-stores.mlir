// RUN: tile-opt %s -split-input-file --tile-tma-stores | FileCheck %s

// sm_90a, a descriptor whose extents are multiples of 16 elements: a store of a 2-D block
// becomes, where the block starts inside the tensor, a write of the value into a swizzled
// staging buffer and a TMA store of it, the value written from the layout its chain starts
// in (the accumulator's: the conversion to the store's layout dropped, the cast after it
// recomputed there); elsewhere the masked store, converting the cast value (f16, not f32),
// its address computation moved into its branch. The descriptor's map (f16, 128-byte
// swizzle, 64 x 64 box) goes on the module.
// CHECK-LABEL: module attributes
// CHECK-SAME: tile.tma_maps = [#tile.tma_map<arg = 0, type = f16, swizzle = 128, box = [64, 64]>]
// CHECK-LABEL: func.func @store_block
// CHECK: %[[M:.*]] = tile.descriptor_dim %arg0 {dim = 0 : i32, stride = false}
// CHECK: arith.cmpi slt, %arg4, %[[M]]
// CHECK: arith.cmpi sge, %arg4
// CHECK: %[[N:.*]] = tile.descriptor_dim %arg0 {dim = 1 : i32, stride = false}
// CHECK: arith.cmpi slt, %arg5, %[[N]]
// CHECK: arith.cmpi sge, %arg5
// CHECK: scf.if
// CHECK-NEXT: %[[H:.*]] = arith.truncf %arg1 : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
// CHECK-NEXT: %[[S:.*]] = tile.local_alloc %[[H]] : (tensor<64x64xf16, #mma>) -> !tile.memdesc<64x64xf16, #tile.nvmma_shared<swizzle = 128>>
// CHECK-NEXT: tile.async_tma_store %[[S]] -> %arg0[%arg4, %arg5] : <64x64xf16, #tile.nvmma_shared<swizzle = 128>>, <f16, 2>
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.splat %arg4
// CHECK-NEXT: %[[P:.*]] = tile.addptr
// CHECK-NEXT: %[[H2:.*]] = arith.truncf %arg1 : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
// CHECK-NEXT: %[[C:.*]] = tile.convert_layout %[[H2]] : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
// CHECK-NEXT: tile.store %[[P]], %[[C]], %arg3 box %arg0[%arg4, %arg5]
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {tile.target = "sm_90a"} {
  func.func @store_block(%c: !tile.tensordesc<f16, 2> {tile.divisibility = 16 : i32}, %acc: tensor<64x64xf32, #mma>,
                         %p: tensor<64x64x!tile.ptr<f16>, #blocked>, %m: tensor<64x64xi1, #blocked>, %r: i32,
                         %col: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %off = tile.splat %r : tensor<64x64xi32, #blocked>
    %q = tile.addptr %p, %off : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    %v = tile.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    %h = arith.truncf %v : tensor<64x64xf32, #blocked> to tensor<64x64xf16, #blocked>
    tile.store %q, %h, %m box %c[%r, %col] of !tile.tensordesc<f16, 2> : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xf16, #blocked>, tensor<64x64xi1, #blocked>
    return
  }
}

// -----

// Extents not known to be multiples of 16 elements (TMA clips a stored box only at 16-byte
// granularity along the innermost dimension): the masked store stays, converting the cast
// value instead of the f32 accumulator.
// CHECK-LABEL: func.func @ragged_extents
// CHECK-NOT: tile.async_tma_store
// CHECK: %[[H:.*]] = arith.truncf %arg1 : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
// CHECK-NEXT: %[[C:.*]] = tile.convert_layout %[[H]] : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #blocked>
// CHECK-NEXT: tile.store %arg2, %[[C]], %arg3 box
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {tile.target = "sm_90a"} {
  func.func @ragged_extents(%c: !tile.tensordesc<f16, 2>, %acc: tensor<64x64xf32, #mma>, %p: tensor<64x64x!tile.ptr<f16>, #blocked>,
                            %m: tensor<64x64xi1, #blocked>, %r: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %v = tile.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    %h = arith.truncf %v : tensor<64x64xf32, #blocked> to tensor<64x64xf16, #blocked>
    tile.store %p, %h, %m box %c[%r, %r] of !tile.tensordesc<f16, 2> : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xf16, #blocked>, tensor<64x64xi1, #blocked>
    return
  }
}

// -----

// Stays a masked store on sm_80 (no TMA).
// CHECK-LABEL: func.func @sm_80
// CHECK-NOT: tile.async_tma_store
// CHECK: tile.store
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {tile.target = "sm_80"} {
  func.func @sm_80(%c: !tile.tensordesc<f32, 2> {tile.divisibility = 16 : i32}, %v: tensor<64x64xf32, #blocked>, %p: tensor<64x64x!tile.ptr<f32>, #blocked>,
                   %m: tensor<64x64xi1, #blocked>, %r: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    tile.store %p, %v, %m box %c[%r, %r] of !tile.tensordesc<f32, 2> : tensor<64x64x!tile.ptr<f32>, #blocked>, tensor<64x64xf32, #blocked>, tensor<64x64xi1, #blocked>
    return
  }
}

// -----

// A block of 4 rows (not whole 8-row swizzle atoms) stays a masked store; a second box of a
// descriptor that already has a map does too.
// CHECK-LABEL: func.func @few_rows_and_second_box
// CHECK: tile.store %{{.*}} : tensor<4x64x!tile.ptr<f32>, #blocked>
// CHECK: tile.async_tma_store {{.*}} : <64x64xf32, #tile.nvmma_shared<swizzle = 128>>, <f32, 2>
// CHECK: tile.store %{{.*}} : tensor<64x64x!tile.ptr<f32>, #blocked>
// CHECK: tile.store %{{.*}} : tensor<32x64x!tile.ptr<f32>, #blocked>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {tile.target = "sm_90a"} {
  func.func @few_rows_and_second_box(%c: !tile.tensordesc<f32, 2> {tile.divisibility = 16 : i32}, %a: tensor<4x64xf32, #blocked>,
                                     %pa: tensor<4x64x!tile.ptr<f32>, #blocked>, %ma: tensor<4x64xi1, #blocked>, %b: tensor<64x64xf32, #blocked>,
                                     %pb: tensor<64x64x!tile.ptr<f32>, #blocked>, %mb: tensor<64x64xi1, #blocked>, %d: tensor<32x64xf32, #blocked>,
                                     %pd: tensor<32x64x!tile.ptr<f32>, #blocked>, %md: tensor<32x64xi1, #blocked>, %r: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    tile.store %pa, %a, %ma box %c[%r, %r] of !tile.tensordesc<f32, 2> : tensor<4x64x!tile.ptr<f32>, #blocked>, tensor<4x64xf32, #blocked>, tensor<4x64xi1, #blocked>
    tile.store %pb, %b, %mb box %c[%r, %r] of !tile.tensordesc<f32, 2> : tensor<64x64x!tile.ptr<f32>, #blocked>, tensor<64x64xf32, #blocked>, tensor<64x64xi1, #blocked>
    tile.store %pd, %d, %md box %c[%r, %r] of !tile.tensordesc<f32, 2> : tensor<32x64x!tile.ptr<f32>, #blocked>, tensor<32x64xf32, #blocked>, tensor<32x64xi1, #blocked>
    return
  }
}

// -----

// A descriptor atomic add whose old values are unused: where the block meets the tensor (its
// end past 0 and its start before the extent, in each dimension: TMA adds the part inside
// wherever the box starts), the value staged from its chain's layout and added by the TMA's
// reduce; no masked fallback. The block is staged before the branch (the barrier that
// publishes it then comes before the branch too: tile-insert-barriers). One whose old values
// are used keeps the masked atomics.
// CHECK-LABEL: func.func @atomic_add_block
// CHECK: %[[M:.*]] = tile.descriptor_dim %arg0 {dim = 0 : i32, stride = false}
// CHECK: %[[END:.*]] = arith.addi %arg4, %c64_i32
// CHECK: arith.cmpi slt, %arg4, %[[M]]
// CHECK: arith.cmpi sgt, %[[END]]
// CHECK: %[[S:.*]] = tile.local_alloc %arg1 : (tensor<64x64xf32, #mma>) -> !tile.memdesc<64x64xf32, #tile.nvmma_shared<swizzle = 128>>
// CHECK-NEXT: scf.if
// CHECK-NEXT: tile.async_tma_store add %[[S]] -> %arg0[%arg4, %arg5] : <64x64xf32, #tile.nvmma_shared<swizzle = 128>>, <f32, 2>
// CHECK-NEXT: }
// CHECK-NOT: else
// CHECK: %[[OLD:.*]] = tile.atomic_rmw add %arg2, {{.*}} box %arg0
// CHECK: return %[[OLD]]
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {tile.target = "sm_90a"} {
  func.func @atomic_add_block(%c: !tile.tensordesc<f32, 2> {tile.divisibility = 16 : i32}, %acc: tensor<64x64xf32, #mma>,
                              %p: tensor<64x64x!tile.ptr<f32>, #blocked>, %m: tensor<64x64xi1, #blocked>, %r: i32,
                              %col: i32) -> tensor<64x64xf32, #blocked> attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %v = tile.convert_layout %acc : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
    %unused = tile.atomic_rmw add %p, %v, %m box %c[%r, %col] of !tile.tensordesc<f32, 2> : tensor<64x64x!tile.ptr<f32>, #blocked>, tensor<64x64xf32, #blocked>, tensor<64x64xi1, #blocked>
    %old = tile.atomic_rmw add %p, %v, %m box %c[%r, %col] of !tile.tensordesc<f32, 2> : tensor<64x64x!tile.ptr<f32>, #blocked>, tensor<64x64xf32, #blocked>, tensor<64x64xi1, #blocked>
    return %old : tensor<64x64xf32, #blocked>
  }
}
