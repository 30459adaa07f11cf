// The math library's GPU instructions. The fast_* functions (`afn` on f32) are one
// approximate instruction each, flushing subnormals where the instruction can (lg2, sqrt,
// sin, cos .approx.ftz; tanh.approx and div.full have no .ftz form); sqrt without `afn` is
// IEEE (sqrt.rn.f32: libdevice's sqrtf would give sqrt.approx, as __nvvm_reflect answers
// __CUDA_PREC_SQRT with 0), f64 too; the accurate functions are libdevice's, inlined (no
// call left). f64 with `afn` is the accurate function (no f64 approximation).
// RUN: tilec %s --stage=ptx | FileCheck %s
// RUN: %if ptxas %{ tilec %s --stage=regs | FileCheck %s --check-prefix=REGS %}

// CHECK-LABEL: .entry fast_math
// CHECK-DAG: lg2.approx.ftz.f32
// CHECK-DAG: sqrt.approx.ftz.f32
// CHECK-DAG: tanh.approx.f32
// CHECK-DAG: sin.approx.ftz.f32
// CHECK-DAG: cos.approx.ftz.f32
// CHECK-DAG: div.full.f32
// CHECK-DAG: sqrt.rn.f32
// CHECK-DAG: sqrt.rn.f64
// CHECK-NOT: call
// REGS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @fast_math(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %d: !tile.ptr<f64> {tile.divisibility = 16 : i32}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %xs = tile.splat %x : tensor<128x!tile.ptr<f32>>
  %p = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %p : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
  %a = math.log2 %v fastmath<afn> : tensor<128xf32>
  %b = math.sqrt %a fastmath<afn> : tensor<128xf32>
  %c = math.tanh %b fastmath<afn> : tensor<128xf32>
  %e = math.sin %c fastmath<afn> : tensor<128xf32>
  %f = math.cos %e fastmath<afn> : tensor<128xf32>
  %g = arith.divf %f, %v fastmath<afn> : tensor<128xf32>
  %h = math.sqrt %g : tensor<128xf32>
  tile.store %p, %h : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  %ds = tile.splat %d : tensor<128x!tile.ptr<f64>>
  %dp = tile.addptr %ds, %r : tensor<128x!tile.ptr<f64>>, tensor<128xi32>
  %dv = tile.load %dp : tensor<128x!tile.ptr<f64>> -> tensor<128xf64>
  %ds2 = math.sqrt %dv fastmath<afn> : tensor<128xf64>
  tile.store %dp, %ds2 : tensor<128x!tile.ptr<f64>>, tensor<128xf64>
  return
}
