// RUN: tile-opt %s -split-input-file --convert-tile-to-llvm -verify-diagnostics
// Layouts the lowering cannot handle yet are refused with the reason, never lowered wrong.

// A lane bit that moves along the reduced axis and the other dimension at once (lane
// bit 0 -> (1, 1)): a butterfly over it would mix different rows' results.
#mixed = #tile.linear<register = [[0, 1], [0, 2]], lane = [[1, 1], [2, 0], [4, 0], [8, 0], [16, 0]], warp = []>
func.func @mixed_axis(%v: tensor<32x4xf32, #mixed>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  // expected-error @+2 {{failed to legalize operation 'tile.reduce'}}
  // expected-error @+1 {{'tile.reduce' op lowering: cannot reduce a tensor of layout #tile.linear<register = [[0, 1], [0, 2]], lane = [[1, 1], [2, 0], [4, 0], [8, 0], [16, 0]], warp = []> along axis 0: lane bit 0 moves along the reduced axis and another dimension at once}}
  %s = tile.reduce sum %v {axis = 0 : i32} : tensor<32x4xf32, #mixed> -> tensor<4xf32, #tile.slice<dim = 0, parent = #mixed>>
  return
}
