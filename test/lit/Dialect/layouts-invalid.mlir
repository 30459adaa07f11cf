// Layout attributes and the tensors they describe are verified: #tile.linear's bases
// (one coordinate per dimension, 5 lane bases, inside the shape, every element held),
// #tile.slice's dimension, and the rank and power-of-two shape any distributed layout needs.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{a linear layout needs 5 lane bases (32 lanes), got 4}}
func.func @four_lanes(%x: tensor<16xf32, #tile.linear<register = [], lane = [[1], [2], [4], [8]], warp = []>>) {
  return
}

// -----

// expected-error @+1 {{every basis needs 2 coordinates, got 1}}
func.func @ragged(%x: tensor<16x16xf32, #tile.linear<register = [[0, 1]], lane = [[1], [2], [4], [8], [0]], warp = []>>) {
  return
}

// -----

// expected-error @+1 {{basis coordinates must lie in [0, 2^30), got -1}}
func.func @negative(%x: tensor<32xf32, #tile.linear<register = [], lane = [[1], [2], [4], [8], [-1]], warp = []>>) {
  return
}

// -----

// expected-error @+1 {{lane basis 4 moves dimension 0 to 16, outside the tensor's extent 16}}
func.func @outside(%x: tensor<16xf32, #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = []>>) {
  return
}

// -----

// Lanes 16..31 repeat lanes 0..15: 32 of the 64 elements have a holder.
// expected-error @+1 {{the layout holds 32 of the tensor's 64 elements; every element needs a holder}}
func.func @not_covered(%x: tensor<64xf32, #tile.linear<register = [[32]], lane = [[1], [2], [4], [8], [0]], warp = []>>) {
  return
}

// -----

// expected-error @+1 {{layout #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = []> is for tensors of rank 1, not 2}}
func.func @rank(%x: tensor<32x1xf32, #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = []>>) {
  return
}

// -----

// expected-error @+1 {{slice dimension 2 is out of the parent's rank 2}}
func.func @slice_dim(%x: tensor<64xf32, #tile.slice<dim = 2, parent = #tile.mma<warpsPerCTA = [2, 2]>>>) {
  return
}

// -----

// expected-error @+1 {{slice dimension 1 is out of the parent's rank 1}}
func.func @slice_of_slice_dim(%x: tensor<64xf32, #tile.slice<dim = 1, parent = #tile.slice<dim = 0, parent = #tile.mma<warpsPerCTA = [2, 2]>>>>) {
  return
}

// -----

// expected-error @+2 {{invalid kind of attribute specified}}
// expected-error @+1 {{failed to parse Tile_SliceLayout parameter 'parent' which is to be a `DistributedLayoutInterface`}}
func.func @slice_of_shared(%x: tensor<64xf32, #tile.slice<dim = 0, parent = #tile.swizzled_shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>>) {
  return
}

// -----

// expected-error @+1 {{a tensor with a distributed layout needs power-of-two dimensions, got 48}}
func.func @not_power_of_two(%x: tensor<48xf32, #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>) {
  return
}

// -----

// expected-error @+1 {{mma.sync operands are 16-bit or 32-bit (tf32) elements, got 'i8'}}
func.func @dot_operand_i8(%x: tensor<64x32xi8, #tile.dot_operand<opIdx = 0, parent = #tile.mma<warpsPerCTA = [2, 2]>>>) {
  return
}

// -----

// Found by fuzz_ir_pipeline: 65536 x 65536 warps multiplied to 0 in 32 bits and passed, then
// the lowering's layout algebra threw (32 warp bases, at most 30).
// expected-error @+1 {{at most 2^30 registers and 32 warps}}
func.func @too_many_warps(%x: tensor<64x32xf16, #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [65536, 65536], order = [1, 0]>>) {
  return
}

// -----

// expected-error @+1 {{at most 2^30 registers and 32 warps}}
func.func @too_many_registers(%x: tensor<64x32xf16, #tile.blocked<sizePerThread = [65536, 65536], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>) {
  return
}

// -----

// expected-error @+1 {{at most 32 warps}}
func.func @mma_too_many_warps(%x: tensor<64x64xf32, #tile.mma<warpsPerCTA = [64, 2]>>) {
  return
}
