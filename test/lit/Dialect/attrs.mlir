// The attributes passes hand each other print and parse back: the module's TMA maps and launch
// warps, an access's vector width.
// RUN: tile-opt %s | tile-opt | FileCheck %s

// CHECK: module attributes {tile.launch_warps = 12 : i32, tile.tma_maps = [#tile.tma_map<arg = 0, type = f16, swizzle = 128, box = [64, 64]>, #tile.tma_map<arg = 2, type = tf32, swizzle = 128, box = [256, 32]>]}
module attributes {tile.launch_warps = 12 : i32,
                   tile.tma_maps = [#tile.tma_map<arg = 0, type = f16, swizzle = 128, box = [64, 64]>,
                                    #tile.tma_map<arg = 2, type = tf32, swizzle = 128, box = [256, 32]>]} {
  // CHECK-LABEL: func.func @vectorised
  // CHECK: tile.load %{{.*}} {tile.vec = 4 : i32}
  // CHECK: tile.store %{{.*}}, %{{.*}} {tile.vec = 16 : i32}
  func.func @vectorised(%p: tensor<128x!tile.ptr<f32>>, %q: tensor<128x!tile.ptr<i8>>, %b: tensor<128xi8>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
    %v = tile.load %p {tile.vec = 4 : i32} : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
    tile.store %q, %b {tile.vec = 16 : i32} : tensor<128x!tile.ptr<i8>>, tensor<128xi8>
    return
  }
}
