// The dialect's attribute verifier: the attributes passes hand each other (Tile.h), each
// refused where its value could mislead the pass or launch that reads it.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{a TMA map's swizzle is 0, 32, 64 or 128 bytes, got 96}}
module attributes {tile.tma_maps = [#tile.tma_map<arg = 0, type = f16, swizzle = 96, box = [64, 48]>]} {}

// -----

// expected-error @+1 {{TMA box extents are 1 to 256, got 512}}
module attributes {tile.tma_maps = [#tile.tma_map<arg = 0, type = f16, swizzle = 128, box = [512, 64]>]} {}

// -----

// expected-error @+1 {{a TMA box has 1 to 4 dimensions, got 5}}
module attributes {tile.tma_maps = [#tile.tma_map<arg = 0, type = u8, swizzle = 0, box = [1, 1, 1, 1, 1]>]} {}

// -----

// 64 f32 are 256 bytes: more than one 128-byte swizzle row.
// expected-error @+1 {{the innermost box extent (64 elements of 4 bytes) spans more than the 128-byte swizzle}}
module attributes {tile.tma_maps = [#tile.tma_map<arg = 0, type = f32, swizzle = 128, box = [64, 64]>]} {}

// -----

// expected-error @+2 {{expected ::mlir::tile::TmaElementType to be one of: u8, i32, f16, bf16, f32, tf32}}
// expected-error @+1 {{failed to parse Tile_TmaMap parameter 'type'}}
module attributes {tile.tma_maps = [#tile.tma_map<arg = 0, type = f64, swizzle = 128, box = [64, 16]>]} {}

// -----

// One map per descriptor argument: the launch encodes one into the argument.
// expected-error @+1 {{'tile.tma_maps' has two maps for argument 1}}
module attributes {tile.tma_maps = [#tile.tma_map<arg = 1, type = f16, swizzle = 128, box = [64, 64]>,
                                    #tile.tma_map<arg = 1, type = f16, swizzle = 64, box = [64, 32]>]} {}

// -----

// expected-error @+1 {{'tile.tma_maps' holds at most 8 maps, got 9}}
module attributes {tile.tma_maps = [#tile.tma_map<arg = 0, type = f16, swizzle = 128, box = [64, 64]>,
                                    #tile.tma_map<arg = 1, type = f16, swizzle = 128, box = [64, 64]>,
                                    #tile.tma_map<arg = 2, type = f16, swizzle = 128, box = [64, 64]>,
                                    #tile.tma_map<arg = 3, type = f16, swizzle = 128, box = [64, 64]>,
                                    #tile.tma_map<arg = 4, type = f16, swizzle = 128, box = [64, 64]>,
                                    #tile.tma_map<arg = 5, type = f16, swizzle = 128, box = [64, 64]>,
                                    #tile.tma_map<arg = 6, type = f16, swizzle = 128, box = [64, 64]>,
                                    #tile.tma_map<arg = 7, type = f16, swizzle = 128, box = [64, 64]>,
                                    #tile.tma_map<arg = 8, type = f16, swizzle = 128, box = [64, 64]>]} {}

// -----

// expected-error @+1 {{'tile.tma_maps' is an array of #tile.tma_map on the module}}
func.func @maps_on_a_function() attributes {tile.tma_maps = [#tile.tma_map<arg = 0, type = f16, swizzle = 128, box = [64, 64]>]} {
  return
}

// -----

// The positional form the maps replaced.
// expected-error @+1 {{'tile.tma_maps' is an array of #tile.tma_map on the module}}
module attributes {tile.tma_maps = [array<i32: 0, 2, 128, 2, 64, 64>]} {}

// -----

// The launch's warps (a producer warpgroup included) are the module's, not a kernel's.
// expected-error @+1 {{'tile.launch_warps' must be 1 to 32 on the module, got 12 : i32}}
func.func @launch_warps_on_a_function() attributes {tile.kernel, tile.launch_warps = 12 : i32} {
  return
}

// -----

// expected-error @+1 {{'tile.launch_warps' must be 1 to 32 on the module, got 36 : i32}}
module attributes {tile.launch_warps = 36 : i32} {}

// -----

// tile.num_warps is the kernel's layouts' warps only; the module's is tile.launch_warps.
// expected-error @+1 {{'tile.num_warps' must be a power of two from 1 to 32 on a func.func, got 8 : i32}}
module attributes {tile.num_warps = 8 : i32} {}

// -----

func.func @vec_not_power_of_two(%p: tensor<128x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.vec' must be a power of two from 1 to 16 on a tile.load, tile.store, tile.atomic_rmw or tile.async_copy, got 3 : i32}}
  %v = tile.load %p {tile.vec = 3 : i32} : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
  return
}

// -----

// Found by fuzz_ir_pipeline (test/fuzz/corpus/ir/regression-lowering-vec-huge.mlir): now
// refused where it is parsed.
func.func @vec_huge(%p: tensor<128x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.vec' must be a power of two from 1 to 16 on a tile.load, tile.store, tile.atomic_rmw or tile.async_copy, got 2147483647 : i32}}
  %v = tile.load %p {tile.vec = 2147483647 : i32} : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
  return
}

// -----

func.func @vec_wider_than_16(%p: tensor<128x!tile.ptr<i8>>) {
  // expected-error @+1 {{'tile.vec' must be a power of two from 1 to 16 on a tile.load, tile.store, tile.atomic_rmw or tile.async_copy, got 32 : i32}}
  %v = tile.load %p {tile.vec = 32 : i32} : tensor<128x!tile.ptr<i8>> -> tensor<128xi8>
  return
}

// -----

func.func @vec_on_arith(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.vec' must be a power of two from 1 to 16 on a tile.load, tile.store, tile.atomic_rmw or tile.async_copy, got 4 : i32}}
  %y = arith.addf %x, %x {tile.vec = 4 : i32} : tensor<128xf32>
  return
}
