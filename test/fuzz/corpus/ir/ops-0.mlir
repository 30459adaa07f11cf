func.func @all_ops(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %pid = tile.program_id 0 : i32
  %np = tile.num_programs 1 : i32
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %ps = tile.splat %p : tensor<128x!tile.ptr<f32>>
  %ptrs = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %ns = tile.splat %n : tensor<128xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  %v = tile.load %ptrs, %m, %zero : tensor<128x!tile.ptr<f32>>, tensor<128xi1>, tensor<128xf32> -> tensor<128xf32>
  %mx = tile.reduce max %v {axis = 0 : i32} : tensor<128xf32> -> f32
  %am = tile.reduce argmax %v {axis = 0 : i32} : tensor<128xf32> -> i32
  %e = tile.expand_dims %v {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  %b = tile.broadcast %e : tensor<128x1xf32> -> tensor<128x64xf32>
  %s = tile.reduce sum %b {axis = 1 : i32} : tensor<128x64xf32> -> tensor<128xf32>
  %old = tile.atomic_add %ptrs, %s, %m : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
  tile.store %ptrs, %old, %m : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
  return
}

func.func @layouts(%x: tensor<512xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>) {
  %c = tile.convert_layout %x : tensor<512xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>> -> tensor<512xf32, #tile.slice<dim = 1, parent = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>>
  return
}

func.func @matrix_ops(%a: tensor<16x32xf16>, %b: tensor<32x8xf16>, %c: tensor<16x8xf32>, %x: tensor<8x8xf32>, %y: tensor<2x4x8xf32>) {
  %d = tile.dot %a, %b, %c : tensor<16x32xf16> * tensor<32x8xf16> -> tensor<16x8xf32>
  %e = tile.dot %x, %x, %x {input_precision = #tile.input_precision<TF32>} : tensor<8x8xf32> * tensor<8x8xf32> -> tensor<8x8xf32>
  %t = tile.trans %y {order = array<i32: 2, 0, 1>} : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
  %r = tile.reshape %y : tensor<2x4x8xf32> -> tensor<64xf32>
  return
}

func.func @shared_memory_ops(%x: tensor<64x32xf16, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>,
                             %p: tensor<64x32x!tile.ptr<f16>, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>,
                             %m: tensor<64x32xi1, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>,
                             %i: i32,
                             %q: tensor<32x64x!tile.ptr<bf16>, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>) attributes {tile.kernel} {
  %a = tile.local_alloc %x {tile.offset = 0 : i32} : (tensor<64x32xf16, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>) -> !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  %l = tile.local_load %a : !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> tensor<64x32xf16, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>
  %w = tile.local_load %a {offsets = array<i64: 0, 16>} : !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> tensor<64x16xf16, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>
  %d = tile.local_load %a : !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> tensor<64x32xf16, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [2, 2]>>>
  tile.local_store %x, %a : tensor<64x32xf16, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>, !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  %ring = tile.local_alloc : () -> !tile.memdesc<3x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  %s = tile.memdesc_index %ring[%i] : !tile.memdesc<3x64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>> -> !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  tile.async_copy %p, %s, %m {tile.vec = 8 : i32} : tensor<64x32x!tile.ptr<f16>, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>, !tile.memdesc<64x32xf16, #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>, tensor<64x32xi1, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>
  %b = tile.local_alloc : () -> !tile.memdesc<32x64xbf16, #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  tile.async_copy %q, %b : tensor<32x64x!tile.ptr<bf16>, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>, !tile.memdesc<32x64xbf16, #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  tile.async_commit_group
  tile.async_wait {pending = 2 : i32}
  tile.barrier
  %e = tile.local_load %b : !tile.memdesc<32x64xbf16, #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>> -> tensor<32x64xbf16, #tile.dot_operand<opIdx = 1, parent = #tile.mma<warpsPerCTA = [2, 2]>>>
  return
}

func.func @memdesc_types(%a: !tile.memdesc<8x16xi8, #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>>,
                         %b: !tile.memdesc<2x16x16xf32, #tile.swizzled_shared<vec = 4, perPhase = 2, maxPhase = 4, order = [1, 0]>>) {
  return
}
