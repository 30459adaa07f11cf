// The accurate math functions are libdevice's, inlined: no call left (its tanhf builds on
// ex2.approx.ftz and rcp.approx.ftz itself, within its 2 ulp); floor, rint, round and trunc
// included (bit for bit the C library's: test/unit/cpu_math_tests.cpp).
// RUN: tilec %s --stage=ptx | FileCheck %s
// RUN: %if ptxas %{ tilec %s --stage=regs | FileCheck %s --check-prefix=REGS %}

// CHECK-LABEL: .entry accurate_math
// CHECK-NOT: call
// CHECK: ret;
// REGS: 0 bytes spill stores, 0 bytes spill loads
func.func @accurate_math(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %xs = tile.splat %x : tensor<128x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %p : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
  %a = math.sin %v : tensor<128xf32>
  %b = math.tanh %a : tensor<128xf32>
  %c = math.erf %b : tensor<128xf32>
  %e = math.log1p %c : tensor<128xf32>
  %f = math.expm1 %e : tensor<128xf32>
  %g = math.powf %f, %v : tensor<128xf32>
  %h = math.floor %g : tensor<128xf32>
  %i = math.roundeven %h : tensor<128xf32>
  %j = math.round %i : tensor<128xf32>
  %k = math.trunc %j : tensor<128xf32>
  tile.store %p, %k : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  return
}
