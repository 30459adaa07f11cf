// Verifier errors of the tile ops.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @range_not_power_of_two() {
  // expected-error @+1 {{range size must be a power of two, got 100}}
  %r = tile.make_range {start = 0 : i32, end = 100 : i32} : tensor<100xi32>
  return
}

// -----

func.func @range_wrong_length() {
  // expected-error @+1 {{result has 64 elements, range has 128}}
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<64xi32>
  return
}

// -----

func.func @load_type_mismatch(%p: tensor<16x!tile.ptr<f32>>) {
  // expected-error @+1 {{value element type 'f16' differs from pointee type 'f32'}}
  %v = tile.load %p : tensor<16x!tile.ptr<f32>> -> tensor<16xf16>
  return
}

// -----

func.func @mask_shape(%p: tensor<16x!tile.ptr<f32>>, %m: tensor<32xi1>) {
  // expected-error @+1 {{mask shape must match the pointer shape}}
  %v = tile.load %p, %m : tensor<16x!tile.ptr<f32>>, tensor<32xi1> -> tensor<16xf32>
  return
}

// -----

func.func @store_shape(%p: tensor<16x!tile.ptr<f32>>, %v: tensor<8xf32>) {
  // expected-error @+1 {{value shape must match the pointer shape}}
  tile.store %p, %v : tensor<16x!tile.ptr<f32>>, tensor<8xf32>
  return
}

// -----

func.func @reduce_axis(%x: tensor<16xf32>) {
  // expected-error @+1 {{axis 1 out of range}}
  %s = tile.reduce sum %x {axis = 1 : i32} : tensor<16xf32> -> f32
  return
}

// -----

func.func @argmax_type(%x: tensor<16xf32>) {
  // expected-error @+1 {{result element type must be 'i32'}}
  %s = tile.reduce argmax %x {axis = 0 : i32} : tensor<16xf32> -> f32
  return
}

// -----

func.func @broadcast_bad(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{dimension 1 of size 2 cannot broadcast to 8}}
  %b = tile.broadcast %x : tensor<4x2xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @expand_bad(%x: tensor<4xf32>) {
  // expected-error @+1 {{axis 3 out of range}}
  %e = tile.expand_dims %x {axis = 3 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @other_without_mask(%p: !tile.ptr<f32>, %o: f32) {
  // expected-error @+1 {{'other' needs a mask}}
  %v = "tile.load"(%p, %o) {operandSegmentSizes = array<i32: 1, 0, 1, 0, 0>} : (!tile.ptr<f32>, f32) -> f32
  return
}

// -----

// expected-error @+1 {{threadsPerWarp must multiply to 32, got 16}}
func.func @bad_layout(%x: tensor<64xf32, #tile.blocked<sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [4], order = [0]>>) {
  return
}

// -----

func.func @dot_inner_dims(%a: tensor<16x32xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{inner dimensions differ: a is 16x32, b is 16x16}}
  %d = tile.dot %a, %b, %c : tensor<16x32xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_acc_shape(%a: tensor<16x32xf16>, %b: tensor<32x8xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{accumulator must be 16x8, got 16x16}}
  %d = tile.dot %a, %b, %c : tensor<16x32xf16> * tensor<32x8xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_mixed_types(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{a and b must have one element type}}
  %d = tile.dot %a, %b, %c : tensor<16x16xf16> * tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_int_inputs(%a: tensor<16x16xi32>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{inputs must be f16, bf16 or f32}}
  %d = tile.dot %a, %a, %c : tensor<16x16xi32> * tensor<16x16xi32> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_f16_acc(%a: tensor<16x16xf16>, %c: tensor<16x16xf16>) {
  // expected-error @+1 {{accumulator must be f32}}
  %d = tile.dot %a, %a, %c : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf16>
  return
}

// -----

func.func @dot_tf32_of_f16(%a: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{tf32 input precision needs f32 inputs}}
  %d = tile.dot %a, %a, %c {input_precision = #tile.input_precision<TF32>} : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_rank3(%a: tensor<2x16x16xf32>, %c: tensor<2x16x16xf32>) {
  // expected-error @+1 {{operands must be 2-D, got ranks 3, 3, 3}}
  %d = tile.dot %a, %a, %c : tensor<2x16x16xf32> * tensor<2x16x16xf32> -> tensor<2x16x16xf32>
  return
}

// -----

func.func @trans_not_permutation(%x: tensor<16x32xf32>) {
  // expected-error @+1 {{order must be a permutation of the dimensions}}
  %t = tile.trans %x {order = array<i32: 0, 0>} : tensor<16x32xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @trans_shape(%x: tensor<16x32xf32>) {
  // expected-error @+1 {{result shape does not follow the order}}
  %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<16x32xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<16x32xf32>) {
  // expected-error @+1 {{element count changes from 512 to 256}}
  %r = tile.reshape %x : tensor<16x32xf32> -> tensor<16x16xf32>
  return
}

// -----

// Shared memory: a buffer is one 2-D tile or a ring of them, never 1-D ...
// expected-error @+1 {{a shared-memory buffer is 2-D, or 3-D with a leading stage dimension}}
func.func @memdesc_rank1(%m: !tile.memdesc<64xf16, #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>) {
  return
}

// -----

// ... nor 4-D.
// expected-error @+1 {{a shared-memory buffer is 2-D, or 3-D with a leading stage dimension}}
func.func @memdesc_rank4(%m: !tile.memdesc<2x2x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>) {
  return
}

// -----

// A tile dimension that is not a power of two.
// expected-error @+1 {{buffer dimensions must be powers of two}}
func.func @memdesc_not_power_of_two(%m: !tile.memdesc<48x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>) {
  return
}

// -----

// A zero dimension is not a power of two either.
// expected-error @+1 {{buffer dimensions must be powers of two}}
func.func @memdesc_zero_dim(%m: !tile.memdesc<0x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>) {
  return
}

// -----

// A register layout is not a shared layout.
// expected-error @+1 {{expected a shared layout, got #tile.blocked}}
func.func @memdesc_blocked(%m: !tile.memdesc<64x32xf16, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>) {
  return
}

// -----

// Buffers hold numbers, not pointers.
// expected-error @+1 {{buffer elements must be integers or floats, got '!tile.ptr<f32>'}}
func.func @memdesc_ptr_elements(%m: !tile.memdesc<64x32x!tile.ptr<f32>, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>) {
  return
}

// -----

// The swizzle's chunk width must be a power of two ...
// expected-error @+1 {{vec, perPhase and maxPhase must be powers of two}}
func.func @swizzle_vec(%m: !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 6, perPhase = 1, maxPhase = 4, order = [1, 0]>>) {
  return
}

// -----

// ... and so must perPhase ...
// expected-error @+1 {{vec, perPhase and maxPhase must be powers of two}}
func.func @swizzle_per_phase(%m: !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 3, maxPhase = 4, order = [1, 0]>>) {
  return
}

// -----

// ... and maxPhase (0 is not one).
// expected-error @+1 {{vec, perPhase and maxPhase must be powers of two}}
func.func @swizzle_max_phase(%m: !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 0, order = [1, 0]>>) {
  return
}

// -----

// 2-D tiles are row-major ([1, 0]) or column-major ([0, 1]): an order naming one dimension twice is rejected ...
// expected-error @+1 {{only 2-D shared layouts, row-major (order = [1, 0]) or column-major (order = [0, 1]), are supported}}
func.func @swizzle_repeated_order(%m: !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 1]>>) {
  return
}

// -----

// ... and so is an order of another rank.
// expected-error @+1 {{only 2-D shared layouts, row-major (order = [1, 0]) or column-major (order = [0, 1]), are supported}}
func.func @swizzle_rank3_order(%m: !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [2, 1, 0]>>) {
  return
}

// -----

func.func @local_alloc_shape(%x: tensor<64x16xf16>) {
  // expected-error @+1 {{'tile.local_alloc' op source 'tensor<64x16xf16>' does not match the buffer '!tile.memdesc<64x32xf16}}
  %m = tile.local_alloc %x : (tensor<64x16xf16>) -> !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  return
}

// -----

func.func @local_alloc_element(%x: tensor<64x32xbf16>) {
  // expected-error @+1 {{'tile.local_alloc' op source 'tensor<64x32xbf16>' does not match the buffer}}
  %m = tile.local_alloc %x : (tensor<64x32xbf16>) -> !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  return
}

// -----

// A tensor fills one buffer, not a ring.
func.func @local_alloc_into_ring(%x: tensor<64x32xf16>) {
  // expected-error @+1 {{'tile.local_alloc' op source 'tensor<64x32xf16>' does not match the buffer '!tile.memdesc<2x64x32xf16}}
  %m = tile.local_alloc %x : (tensor<64x32xf16>) -> !tile.memdesc<2x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  return
}

// -----

func.func @local_load_shape(%m: !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>) {
  // expected-error @+1 {{'tile.local_load' op result 'tensor<32x64xf16>' does not match the buffer}}
  %x = tile.local_load %m : !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> tensor<32x64xf16>
  return
}

// -----

func.func @local_load_element(%m: !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>) {
  // expected-error @+1 {{'tile.local_load' op result 'tensor<64x32xf32>' does not match the buffer}}
  %x = tile.local_load %m : !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> tensor<64x32xf32>
  return
}

// -----

func.func @local_store_shape(%x: tensor<64x64xf16>, %m: !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>) {
  // expected-error @+1 {{'tile.local_store' op stored tensor 'tensor<64x64xf16>' does not match the buffer}}
  tile.local_store %x, %m : tensor<64x64xf16>, !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  return
}

// -----

func.func @local_store_element(%x: tensor<64x32xi16>, %m: !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>) {
  // expected-error @+1 {{'tile.local_store' op stored tensor 'tensor<64x32xi16>' does not match the buffer}}
  tile.local_store %x, %m : tensor<64x32xi16>, !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  return
}

// -----

// memdesc_index drops the stage dimension and nothing else: a wrong tile shape ...
func.func @memdesc_index_shape(%r: !tile.memdesc<2x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>, %i: i32) {
  // expected-error @+1 {{'tile.memdesc_index' op result must be one buffer of the ring}}
  %s = tile.memdesc_index %r[%i] : !tile.memdesc<2x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> !tile.memdesc<32x64xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  return
}

// -----

// ... an index into a 2-D buffer (no stage dimension) ...
func.func @memdesc_index_not_a_ring(%r: !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>, %i: i32) {
  // expected-error @+1 {{'tile.memdesc_index' op result must be one buffer of the ring}}
  %s = tile.memdesc_index %r[%i] : !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  return
}

// -----

// ... another element type ...
func.func @memdesc_index_element(%r: !tile.memdesc<2x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>, %i: i32) {
  // expected-error @+1 {{'tile.memdesc_index' op result must be one buffer of the ring}}
  %s = tile.memdesc_index %r[%i] : !tile.memdesc<2x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> !tile.memdesc<64x32xbf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  return
}

// -----

// ... or another swizzle.
func.func @memdesc_index_layout(%r: !tile.memdesc<2x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>, %i: i32) {
  // expected-error @+1 {{'tile.memdesc_index' op result must be one buffer of the ring}}
  %s = tile.memdesc_index %r[%i] : !tile.memdesc<2x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0]>>
  return
}

// -----

func.func @async_copy_shape(%p: tensor<64x16x!tile.ptr<f16>>, %m: !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>) {
  // expected-error @+1 {{'tile.async_copy' op pointers 'tensor<64x16x!tile.ptr<f16>>' do not match the buffer}}
  tile.async_copy %p, %m : tensor<64x16x!tile.ptr<f16>>, !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  return
}

// -----

func.func @async_copy_pointee(%p: tensor<64x32x!tile.ptr<bf16>>, %m: !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>) {
  // expected-error @+1 {{'tile.async_copy' op pointers 'tensor<64x32x!tile.ptr<bf16>>' do not match the buffer}}
  tile.async_copy %p, %m : tensor<64x32x!tile.ptr<bf16>>, !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  return
}

// -----

func.func @async_copy_mask(%p: tensor<64x32x!tile.ptr<f16>>, %m: !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>, %k: tensor<64x1xi1>) {
  // expected-error @+1 {{'tile.async_copy' op mask shape must match the pointers}}
  tile.async_copy %p, %m, %k : tensor<64x32x!tile.ptr<f16>>, !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>, tensor<64x1xi1>
  return
}

// -----

// The number of groups left in flight cannot be negative.
func.func @async_wait_negative() {
  // expected-error @+1 {{'tile.async_wait' op attribute 'pending' failed to satisfy constraint}}
  tile.async_wait {pending = -1 : i32}
  return
}

// -----

// A window's offset must be a multiple of its extent (so the shared layout maps the
// window's origin and its coordinates independently) and the window inside the buffer.
func.func @local_load_window_misaligned(%m: !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>) {
  // expected-error @+1 {{window offset 8 along dimension 1 must be a multiple of the window extent 16 inside the buffer's 32}}
  %w = tile.local_load %m {offsets = array<i64: 0, 8>} : !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> tensor<64x16xf16>
  return
}

// -----

func.func @local_load_window_outside(%m: !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>) {
  // expected-error @+1 {{window offset 32 along dimension 1 must be a multiple of the window extent 16 inside the buffer's 32}}
  %w = tile.local_load %m {offsets = array<i64: 0, 32>} : !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> tensor<64x16xf16>
  return
}

// -----

// Kernel attributes (the dialect's attribute verifier): found by fuzz_ir_pipeline, each used to
// crash or hang a pass (test/fuzz/findings/).
// expected-error @+1 {{'tile.num_warps' must be a power of two from 1 to 32 on a func.func, got 0 : i32}}
func.func @zero_warps() attributes {tile.kernel, tile.num_warps = 0 : i32} {
  return
}

// -----

// expected-error @+1 {{'tile.num_warps' must be a power of two from 1 to 32 on a func.func, got 6 : i32}}
func.func @six_warps() attributes {tile.kernel, tile.num_warps = 6 : i32} {
  return
}

// -----

// expected-error @+1 {{'tile.num_stages' must be 1..8 on a func.func, got 2147483647 : i32}}
func.func @endless_stages() attributes {tile.kernel, tile.num_stages = 2147483647 : i32} {
  return
}

// -----

// expected-error @+1 {{'tile.kernel' marks a func.func}}
module attributes {tile.kernel} {
}

// -----

// A kernel declaration used to crash tile-insert-barriers, convert-tile-to-llvm and
// tile-lower-to-cpu, which walk the kernel's body.
// expected-error @+1 {{'tile.kernel' marks a function with a body, not a declaration}}
func.func private @declared(!tile.ptr<f32>) attributes {tile.kernel}

// -----

// Found by fuzz_ir_pipeline: a swizzle wider than the row threw std::invalid_argument in the
// lowering's layout algebra (SharedLayouts.cpp).
// expected-error @+1 {{a swizzled_shared tile needs vec * maxPhase (524288) within its contiguous row of 32 elements}}
func.func @swizzle_wider_than_row(%m: !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 65536, order = [1, 0]>>) {
  return
}

// -----

// A descriptor box is a masked tensor load of the descriptor's rank: one offset per dimension.
func.func @box_offsets(%d: !tile.tensordesc<f16, 2>, %p: tensor<16x16x!tile.ptr<f16>>, %m: tensor<16x16xi1>, %o: i32) {
  // expected-error @+1 {{a descriptor box needs a masked tensor load of the descriptor's rank and element type, one offset per dimension}}
  %v = tile.load %p, %m box %d[%o] of !tile.tensordesc<f16, 2> : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi1> -> tensor<16x16xf16>
  return
}

// -----

func.func @box_element_type(%d: !tile.tensordesc<f32, 2>, %p: tensor<16x16x!tile.ptr<f16>>, %m: tensor<16x16xi1>, %o: i32) {
  // expected-error @+1 {{a descriptor box needs a masked tensor load}}
  %v = tile.load %p, %m box %d[%o, %o] of !tile.tensordesc<f32, 2> : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi1> -> tensor<16x16xf16>
  return
}

// -----

func.func @descriptor_dim(%d: !tile.tensordesc<f16, 2>) {
  // expected-error @+1 {{dimension out of range}}
  %n = tile.descriptor_dim %d {dim = 2 : i32, stride = false} : !tile.tensordesc<f16, 2>
  return
}

// -----

func.func @descriptor_base(%d: !tile.tensordesc<f16, 2>) {
  // expected-error @+1 {{the base points at the descriptor's element type}}
  %p = tile.descriptor_base %d : !tile.tensordesc<f16, 2> -> !tile.ptr<f32>
  return
}

// -----

// expected-error @+1 {{a tensor descriptor has 1 to 4 dimensions, got 5}}
func.func @descriptor_rank(%d: !tile.tensordesc<f16, 5>) {
  return
}

// -----

// memdesc_trans swaps the dimensions and says so in the layout: a result that keeps the
// layout's order is refused ...
func.func @memdesc_trans_layout(%m: !tile.memdesc<256x32xf32, #tile.nvmma_shared<swizzle = 128>>) {
  // expected-error @+1 {{'tile.memdesc_trans' op result must be '!tile.memdesc<32x256xf32, #tile.nvmma_shared<swizzle = 128, transposed = true>>'}}
  %t = tile.memdesc_trans %m : !tile.memdesc<256x32xf32, #tile.nvmma_shared<swizzle = 128>> -> !tile.memdesc<32x256xf32, #tile.nvmma_shared<swizzle = 128>>
  return
}

// -----

// ... as is a ring.
func.func @memdesc_trans_ring(%m: !tile.memdesc<2x64x32xf16, #tile.nvmma_shared<swizzle = 64>>) {
  // expected-error @+1 {{'tile.memdesc_trans' op transposes one 2-D buffer, not a ring}}
  %t = tile.memdesc_trans %m : !tile.memdesc<2x64x32xf16, #tile.nvmma_shared<swizzle = 64>> -> !tile.memdesc<2x32x64xf16, #tile.nvmma_shared<swizzle = 64>>
  return
}

// -----

// A transposed nvmma tile's swizzle rows run along dimension 0.
// expected-error @+1 {{an nvmma_shared tile needs rows of a multiple of 128 bytes and a multiple of 8 rows (along dimension 0)}}
func.func @nvmma_transposed_rows(%m: !tile.memdesc<16x256xf32, #tile.nvmma_shared<swizzle = 128, transposed = true>>) {
  return
}

// -----

// wgmma reads tf32 operands K-major only: b [K, N] stored N-major is refused.
func.func @warpgroup_dot_tf32_n_major(%a: !tile.memdesc<128x32xf32, #tile.nvmma_shared<swizzle = 128>>,
                                      %b: !tile.memdesc<32x256xf32, #tile.nvmma_shared<swizzle = 128>>,
                                      %acc: tensor<128x256xf32, #tile.mma<warpsPerCTA = [8, 1]>>) {
  // expected-error @+1 {{'tile.warpgroup_dot' op f32 (tf32) operands must be K-major: a untransposed, b transposed}}
  %d = tile.warpgroup_dot %a, %b, %acc : !tile.memdesc<128x32xf32, #tile.nvmma_shared<swizzle = 128>> * !tile.memdesc<32x256xf32, #tile.nvmma_shared<swizzle = 128>> -> tensor<128x256xf32, #tile.mma<warpsPerCTA = [8, 1]>>
  return
}

// -----

// wgmma's register a is f16/bf16 pairs: f32 (tf32) a must come from shared memory.
func.func @warpgroup_dot_register_a_f32(%a: tensor<128x32xf32, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [8, 1]>>>,
                                        %b: !tile.memdesc<32x256xf32, #tile.nvmma_shared<swizzle = 128, transposed = true>>,
                                        %acc: tensor<128x256xf32, #tile.mma<warpsPerCTA = [8, 1]>>) {
  // expected-error @+1 {{'tile.warpgroup_dot' op a in registers must be f16 or bf16 (wgmma reads tf32 a from shared memory)}}
  %d = tile.warpgroup_dot %a, %b, %acc : tensor<128x32xf32, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [8, 1]>>> * !tile.memdesc<32x256xf32, #tile.nvmma_shared<swizzle = 128, transposed = true>> -> tensor<128x256xf32, #tile.mma<warpsPerCTA = [8, 1]>>
  return
}

// -----

// A register a must be in the accumulator's mma.sync A fragments: not a blocked layout ...
func.func @warpgroup_dot_register_a_blocked(%a: tensor<128x32xf16, #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>>,
                                            %b: !tile.memdesc<32x256xf16, #tile.nvmma_shared<swizzle = 128>>,
                                            %acc: tensor<128x256xf32, #tile.mma<warpsPerCTA = [8, 1]>>) {
  // expected-error @+1 {{'tile.warpgroup_dot' op a in registers must be in #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [8, 1]>>, the accumulator's layout, got #tile.blocked}}
  %d = tile.warpgroup_dot %a, %b, %acc : tensor<128x32xf16, #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>> * !tile.memdesc<32x256xf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<128x256xf32, #tile.mma<warpsPerCTA = [8, 1]>>
  return
}

// -----

// ... nor b's fragments ...
func.func @warpgroup_dot_register_a_op_idx_1(%a: tensor<128x32xf16, #tile.dot_operand<opIdx = 1, parent = #tile.mma<warpsPerCTA = [8, 1]>>>,
                                             %b: !tile.memdesc<32x256xf16, #tile.nvmma_shared<swizzle = 128>>,
                                             %acc: tensor<128x256xf32, #tile.mma<warpsPerCTA = [8, 1]>>) {
  // expected-error @+1 {{'tile.warpgroup_dot' op a in registers must be in #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [8, 1]>>}}
  %d = tile.warpgroup_dot %a, %b, %acc : tensor<128x32xf16, #tile.dot_operand<opIdx = 1, parent = #tile.mma<warpsPerCTA = [8, 1]>>> * !tile.memdesc<32x256xf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<128x256xf32, #tile.mma<warpsPerCTA = [8, 1]>>
  return
}

// -----

// ... nor another mma layout's.
func.func @warpgroup_dot_register_a_other_parent(%a: tensor<128x32xf16, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [4, 1]>>>,
                                                 %b: !tile.memdesc<32x256xf16, #tile.nvmma_shared<swizzle = 128>>,
                                                 %acc: tensor<128x256xf32, #tile.mma<warpsPerCTA = [8, 1]>>) {
  // expected-error @+1 {{'tile.warpgroup_dot' op a in registers must be in #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [8, 1]>>, the accumulator's layout, got #tile.dot_operand<opIdx = 0, parent = <warpsPerCTA = [4, 1]>>}}
  %d = tile.warpgroup_dot %a, %b, %acc : tensor<128x32xf16, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [4, 1]>>> * !tile.memdesc<32x256xf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<128x256xf32, #tile.mma<warpsPerCTA = [8, 1]>>
  return
}

// -----

// K steps of 16 for a register a too.
func.func @warpgroup_dot_register_a_k8(%a: tensor<128x8xbf16, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [8, 1]>>>,
                                       %b: !tile.memdesc<8x64xbf16, #tile.nvmma_shared<swizzle = 128>>,
                                       %acc: tensor<128x64xf32, #tile.mma<warpsPerCTA = [8, 1]>>) {
  // expected-error @+1 {{'tile.warpgroup_dot' op needs M a multiple of 128, N a multiple of 8 up to 256 and K of 16, got 128x64x8}}
  %d = tile.warpgroup_dot %a, %b, %acc : tensor<128x8xbf16, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [8, 1]>>> * !tile.memdesc<8x64xbf16, #tile.nvmma_shared<swizzle = 128>> -> tensor<128x64xf32, #tile.mma<warpsPerCTA = [8, 1]>>
  return
}

// -----

// A descriptor store carries a masked tensor block of the descriptor's rank and type ...
func.func @store_box_without_mask(%d: !tile.tensordesc<f16, 2>, %p: tensor<64x32x!tile.ptr<f16>>, %v: tensor<64x32xf16>, %o: i32) {
  // expected-error @+1 {{'tile.store' op a descriptor box needs a masked tensor store of the descriptor's rank and element type, one offset per dimension}}
  tile.store %p, %v box %d[%o, %o] of !tile.tensordesc<f16, 2> : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xf16>
  return
}

// -----

// ... and the TMA store copies an untransposed nvmma buffer of the descriptor's element type.
func.func @tma_store_element(%d: !tile.tensordesc<f16, 2>, %b: !tile.memdesc<64x32xbf16, #tile.nvmma_shared<swizzle = 64>>, %o: i32) {
  // expected-error @+1 {{'tile.async_tma_store' op the buffer holds the descriptor's element type}}
  tile.async_tma_store %b -> %d[%o, %o] : !tile.memdesc<64x32xbf16, #tile.nvmma_shared<swizzle = 64>>, !tile.tensordesc<f16, 2>
  return
}

// -----

func.func @tma_store_transposed(%d: !tile.tensordesc<f16, 2>, %b: !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 128, transposed = true>>, %o: i32) {
  // expected-error @+1 {{'tile.async_tma_store' op copies from an untransposed #tile.nvmma_shared buffer}}
  tile.async_tma_store %b -> %d[%o, %o] : !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 128, transposed = true>>, !tile.tensordesc<f16, 2>
  return
}

// -----

// The TMA's reduce adds floats only ...
func.func @tma_add_integers(%d: !tile.tensordesc<i32, 2>, %b: !tile.memdesc<64x32xi32, #tile.nvmma_shared<swizzle = 128>>, %o: i32) {
  // expected-error @+1 {{'tile.async_tma_store' op adds f32, f16 or bf16 blocks}}
  tile.async_tma_store add %b -> %d[%o, %o] : !tile.memdesc<64x32xi32, #tile.nvmma_shared<swizzle = 128>>, !tile.tensordesc<i32, 2>
  return
}

// -----

// ... and a descriptor atomic add, like a store, is masked (its box's bounds).
func.func @atomic_add_box_unmasked(%d: !tile.tensordesc<f32, 2>, %p: tensor<64x32x!tile.ptr<f32>>, %v: tensor<64x32xf32>, %o: i32) {
  // expected-error @+1 {{'tile.atomic_rmw' op a descriptor box needs a masked tensor atomic add of the descriptor's rank and element type, one offset per dimension}}
  %old = tile.atomic_rmw add %p, %v box %d[%o, %o] of !tile.tensordesc<f32, 2> : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xf32>
  return
}

// -----

// round_tf32 rounds an f32 source.
func.func @round_tf32_f16(%x: tensor<64x32xf16>) {
  // expected-error @+1 {{'tile.local_alloc' op round_tf32 needs an f32 source}}
  %m = tile.local_alloc %x {round_tf32} : (tensor<64x32xf16>) -> !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>
  return
}

// -----

// Consumers in whole warpgroups (wgmma and setmaxnreg work on them).
func.func @warp_specialize_partial_warpgroup() {
  // expected-error @+1 {{'tile.warp_specialize' op needs whole consumer warpgroups and at most 32 warps with the producer's 4, got 6 consumer warps}}
  tile.warp_specialize producer {
  } consumers {
  } {consumer_warps = 6 : i32}
  return
}

// -----

func.func @warp_specialize_registers() {
  // expected-error @+1 {{'tile.warp_specialize' op register counts are 0 (unchanged) or multiples of 8 from 24 to 256, got 20}}
  tile.warp_specialize producer {
  } consumers {
  } {consumer_warps = 8 : i32, producer_registers = 20 : i32, consumer_registers = 232 : i32}
  return
}

// -----

// One warp runs the producer region: tensors, laid out over the consumers' warps, cannot live there.
func.func @warp_specialize_producer_tensor(%x: f32) {
  // expected-error @+1 {{'tile.warp_specialize' op the producer region computes no tensors (one warp runs it)}}
  tile.warp_specialize producer {
    %t = tile.splat %x : tensor<64xf32>
  } consumers {
  } {consumer_warps = 4 : i32}
  return
}

// -----

// mbarriers: a ring is !tile.memdesc<Sx1x1xi64>, one barrier !tile.memdesc<1x1xi64>, in an
// unswizzled shared tile; counts fit the barrier's 20-bit counters.
func.func @init_one_barrier(%bar: !tile.memdesc<1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>) {
  // expected-error @+1 {{'tile.init_barriers' op 'bars' must be a ring of mbarriers, !tile.memdesc<Sx1x1xi64, #tile.swizzled_shared<...>>, got '!tile.memdesc<1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>'}}
  tile.init_barriers %bar : !tile.memdesc<1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  return
}

// -----

func.func @init_count_too_large(%bars: !tile.memdesc<4x1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>) {
  // expected-error @+1 {{'tile.init_barriers' op count must be at most 1048575 (20 bits), got 1048576}}
  tile.init_barriers %bars {count = 1048576 : i32} : !tile.memdesc<4x1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  return
}

// -----

func.func @init_zero_count(%bars: !tile.memdesc<4x1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>) {
  // expected-error @+1 {{'tile.init_barriers' op attribute 'count' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
  tile.init_barriers %bars {count = 0 : i32} : !tile.memdesc<4x1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  return
}

// -----

func.func @invalidate_i32_ring(%bars: !tile.memdesc<4x1x1xi32, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>) {
  // expected-error @+1 {{'tile.invalidate_barriers' op 'bars' must be a ring of mbarriers}}
  tile.invalidate_barriers %bars : !tile.memdesc<4x1x1xi32, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  return
}

// -----

func.func @expect_on_a_ring(%bars: !tile.memdesc<4x1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>, %pred: i1) {
  // expected-error @+1 {{'tile.barrier_expect' op 'bar' must be one mbarrier, !tile.memdesc<1x1xi64, #tile.swizzled_shared<...>>}}
  tile.barrier_expect %bars, %pred {bytes = 4096 : i32} : !tile.memdesc<4x1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  return
}

// -----

func.func @expect_too_many_bytes(%bar: !tile.memdesc<1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>, %pred: i1) {
  // expected-error @+1 {{'tile.barrier_expect' op bytes must be at most 1048575 (20 bits), got 2097152}}
  tile.barrier_expect %bar, %pred {bytes = 2097152 : i32} : !tile.memdesc<1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  return
}

// -----

func.func @wait_on_i32(%bar: !tile.memdesc<1x1xi32, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>, %phase: i32) {
  // expected-error @+1 {{'tile.barrier_wait' op 'bar' must be one mbarrier}}
  tile.barrier_wait %bar, %phase : !tile.memdesc<1x1xi32, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  return
}

// -----

func.func @arrive_on_nvmma(%bar: !tile.memdesc<8x16xi64, #tile.nvmma_shared<swizzle = 128>>, %pred: i1) {
  // expected-error @+1 {{'tile.barrier_arrive' op 'bar' must be one mbarrier}}
  tile.barrier_arrive %bar, %pred : !tile.memdesc<8x16xi64, #tile.nvmma_shared<swizzle = 128>>
  return
}

// -----

func.func @tma_load_on_a_ring(%d: !tile.tensordesc<f16, 2>, %o: i32, %pred: i1,
                              %buf: !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>,
                              %bars: !tile.memdesc<2x1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>) {
  // expected-error @+1 {{'tile.async_tma_load' op 'bar' must be one mbarrier}}
  tile.async_tma_load %d[%o, %o] -> %buf, %bars, %pred : !tile.tensordesc<f16, 2>, !tile.memdesc<64x32xf16, #tile.nvmma_shared<swizzle = 64>>, !tile.memdesc<2x1x1xi64, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  return
}

// -----

// Turns order the consumer warpgroups of a warp-specialised program: not elsewhere, among all
// of them, `only` one of them.
func.func @turn_outside_consumers() {
  // expected-error @+1 {{'tile.turn_wait' op orders the consumer warpgroups of a tile.warp_specialize op: it belongs in its consumers}}
  tile.turn_wait {groups = 2 : i32}
  return
}

// -----

func.func @turn_groups() {
  tile.warp_specialize producer {
  } consumers {
    // expected-error @+1 {{'tile.turn_pass' op takes turns among all 3 consumer warpgroups, got 2 groups}}
    tile.turn_pass {groups = 2 : i32}
  } {consumer_warps = 12 : i32}
  return
}

// -----

func.func @turn_only() {
  tile.warp_specialize producer {
  } consumers {
    // expected-error @+1 {{'tile.turn_pass' op 'only' names one of the 2 warpgroups, got 2}}
    tile.turn_pass {groups = 2 : i32, only = 2 : i32}
  } {consumer_warps = 8 : i32}
  return
}

// -----

// Bitwise atomics take integers...
func.func @atomic_and_float(%p: tensor<64x!tile.ptr<f32>>, %v: tensor<64xf32>) {
  // expected-error @+1 {{'tile.atomic_rmw' op and needs integers, got 'f32'}}
  %old = tile.atomic_rmw and %p, %v : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  return
}

// -----

// ... and only an add takes 16-bit elements (there is no f16 atomic max)...
func.func @atomic_max_half(%p: tensor<64x!tile.ptr<f16>>, %v: tensor<64xf16>) {
  // expected-error @+1 {{'tile.atomic_rmw' op max needs 32- or 64-bit elements, got 'f16'}}
  %old = tile.atomic_rmw max %p, %v : tensor<64x!tile.ptr<f16>>, tensor<64xf16>
  return
}

// -----

// ... or names a descriptor block; a compare-and-swap compares 32 or 64 bits.
func.func @atomic_max_box(%d: !tile.tensordesc<f32, 2>, %p: tensor<64x32x!tile.ptr<f32>>, %v: tensor<64x32xf32>, %m: tensor<64x32xi1>, %o: i32) {
  // expected-error @+1 {{'tile.atomic_rmw' op only an add names a descriptor block}}
  %old = tile.atomic_rmw max %p, %v, %m box %d[%o, %o] of !tile.tensordesc<f32, 2> : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xf32>, tensor<64x32xi1>
  return
}

// -----

func.func @atomic_cas_half(%p: !tile.ptr<f16>, %v: f16) {
  // expected-error @+1 {{'tile.atomic_cas' op needs 32- or 64-bit elements, got 'f16'}}
  %old = tile.atomic_cas %p, %v, %v : !tile.ptr<f16>, f16
  return
}
