// RUN: tile-opt %s -split-input-file --tile-insert-barriers -verify-diagnostics

// tile-insert-barriers needs the offsets of tile-allocate-shared: a buffer access or an
// op with scratch without one is an error, not a silently missing barrier.

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

func.func @buffer_without_offset(%x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.local_alloc' op reads or writes a shared-memory buffer without an offset (tile-allocate-shared must run first)}}
  %a = tile.local_alloc %x : (tensor<64x32xf16, #blocked>) -> !tile.memdesc<64x32xf16, #shared>
  // expected-error @+1 {{'tile.local_load' op reads or writes a shared-memory buffer without an offset}}
  %u = tile.local_load %a : !tile.memdesc<64x32xf16, #shared> -> tensor<64x32xf16, #blocked>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tile.swizzled_shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>

// Through a ring's view, the offset is the ring's.
func.func @ring_without_offset(%p: tensor<64x32x!tile.ptr<f16>, #blocked>, %i: i32) attributes {tile.kernel} {
  %ring = tile.local_alloc : () -> !tile.memdesc<2x64x32xf16, #shared>
  %s = tile.memdesc_index %ring[%i] : !tile.memdesc<2x64x32xf16, #shared> -> !tile.memdesc<64x32xf16, #shared>
  // expected-error @+1 {{'tile.async_copy' op reads or writes a shared-memory buffer without an offset}}
  tile.async_copy %p, %s : tensor<64x32x!tile.ptr<f16>, #blocked>, !tile.memdesc<64x32xf16, #shared>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>

func.func @scratch_without_offset(%x: tensor<64x32xf16, #blocked>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.convert_layout' op needs scratch shared memory without an offset (tile-allocate-shared must run first)}}
  %c = tile.convert_layout %x : tensor<64x32xf16, #blocked> -> tensor<64x32xf16, #blocked1>
  return
}

// -----

#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tile.nvmma_shared<swizzle = 64>
#bar = #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]>

// A warp-specialised producer runs on one warp beside the consumers: a copy into a buffer the
// program read just before would need a barrier there, which that warp cannot take alone.
func.func @producer_needs_barrier(%d: !tile.tensordesc<f16, 2>, %o: i32, %pred: i1) attributes {tile.kernel} {
  %buf = tile.local_alloc {tile.offset = 0 : i32} : () -> !tile.memdesc<64x32xf16, #nvmma>
  %bars = tile.local_alloc {tile.offset = 4096 : i32} : () -> !tile.memdesc<1x1xi64, #bar>
  %u = tile.local_load %buf : !tile.memdesc<64x32xf16, #nvmma> -> tensor<64x32xf16, #blocked>
  tile.warp_specialize producer {
    // expected-error @+1 {{'tile.async_tma_load' op in a warp-specialised producer would need a barrier}}
    tile.async_tma_load %d[%o, %o] -> %buf, %bars, %pred : !tile.tensordesc<f16, 2>, !tile.memdesc<64x32xf16, #nvmma>, !tile.memdesc<1x1xi64, #bar>
  } consumers {
  } {consumer_warps = 4 : i32}
  return
}
