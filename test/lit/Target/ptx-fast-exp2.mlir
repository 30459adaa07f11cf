// fast_exp2 (math.exp2 with `afn`) is one ex2.approx.ftz.f32 per element, nothing around it;
// exp2 stays libdevice's exp2f (ex2.approx.f32, which keeps subnormal results), inlined; ptxas
// takes both without local memory.
// RUN: tilec %s --stage=ptx | FileCheck %s
// RUN: %if ptxas %{ tilec %s --stage=regs | FileCheck %s --check-prefix=REGS %}

// CHECK-LABEL: .entry fast_and_exact_exp2
// CHECK-COUNT-4: ex2.approx.ftz.f32
// CHECK-NOT: ex2.approx.ftz.f32
// CHECK: ex2.approx.f32
// CHECK-NOT: call
// REGS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @fast_and_exact_exp2(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32>
  %xs = tile.splat %x : tensor<512x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %p : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %f = math.exp2 %v fastmath<afn> : tensor<512xf32>
  %e = math.exp2 %f : tensor<512xf32>
  tile.store %p, %e : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}
