// A TF32 dot on CUDA cores rounds each input to tf32 (nearest, ties away from zero) before its
// fma: with cvt.rna.tf32.f32 on sm_80+, and before sm_80, which lacks that instruction, in
// software by the same rule (add half of the last kept bit, clear the 13 dropped bits, leave
// infinities and NaNs). Found by fuzz_dsl_tracer: sm_75 used to abort in LLVM instruction selection.
// RUN: tilec %s --stage=ptx | FileCheck %s --check-prefix=SM90
// RUN: tilec %s --stage=ptx --sm=75 | FileCheck %s --check-prefix=SM75
// RUN: %if ptxas %{ tilec %s --stage=regs --sm=75 | FileCheck %s --check-prefix=REGS %}

// SM90: .target sm_90a
// SM90: cvt.rna.tf32.f32
// SM90: fma.rn.f32
// SM75: .target sm_75
// SM75-NOT: cvt.rna.tf32
// SM75: add.s32 {{.*}}, 4096;
// SM75: and.b32 {{.*}}, -8192;
// SM75: fma.rn.f32
// REGS: 0 bytes spill stores
func.func @dot_tf32(%a: !tile.ptr<f32>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
  %pa = tile.splat %a : tensor<256x!tile.ptr<f32>>
  %qa = tile.addptr %pa, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %va = tile.load %qa : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
  %m = tile.reshape %va : tensor<256xf32> -> tensor<16x16xf32>
  %acc = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %m, %m, %acc {input_precision = #tile.input_precision<TF32>} : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %dr = tile.reshape %d : tensor<16x16xf32> -> tensor<256xf32>
  %pc = tile.splat %c : tensor<256x!tile.ptr<f32>>
  %qc = tile.addptr %pc, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  tile.store %qc, %dr : tensor<256x!tile.ptr<f32>>, tensor<256xf32>
  return
}
