// Attention's two products on sm_90a: S = Q Kᵀ reads both operands from shared memory, Q's
// buffer written once before the loop; P = exp2(S) cast to f16 stays in registers and O += P V
// is wgmma's register form: each K step of 16 takes four b32 registers of P and one descriptor
// (V, stored N-major: imm-trans-b 1) and adds into the accumulators. ptxas accepts it for
// sm_90a, does not serialise the wgmmas, and spills nothing. Shared addresses are 32-bit (no
// 64-bit shift, mask or carry for a descriptor), the register-a wgmmas' V descriptors are one
// plus each K step's offset, and P is converted two values an instruction (cvt.rn.f16x2.f32).
// RUN: tilec %s --stage=ptx | FileCheck %s
// RUN: %if ptxas %{ tilec %s --stage=regs | FileCheck %s --check-prefix=REGS %}

// CHECK: .target sm_90a
// CHECK-LABEL: .entry attention_like
// CHECK: wgmma.fence.sync.aligned
// CHECK-NOT: {{shr.u64|bfe.u64|and.b64|add.s64}}
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{[{](%r[0-9]+, ){31}%r[0-9]+[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1,  1, 0,  0;
// CHECK-NOT: {{shr.u64|bfe.u64|and.b64|add.s64}}
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: wgmma.wait_group.sync.aligned 0
// CHECK-COUNT-16: cvt.rn.f16x2.f32
// CHECK: wgmma.fence.sync.aligned
// V's start field (address >> 4) once, each K step's descriptor adding its offset to it:
// CHECK-NEXT: shr.u32 %r[[FIELD:[0-9]+]], %r{{[0-9]+}}, 4;
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{[{](%r[0-9]+, ){31}%r[0-9]+[}]}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, 1, 1, 1, 1;
// CHECK: add.s32 %r{{[0-9]+}}, %r[[FIELD]], 128;
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{[{](%r[0-9]+, ){31}%r[0-9]+[}]}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, 1, 1, 1, 1;
// CHECK: add.s32 %r{{[0-9]+}}, %r[[FIELD]], 256;
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{[{](%r[0-9]+, ){31}%r[0-9]+[}]}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, 1, 1, 1, 1;
// CHECK: add.s32 %r{{[0-9]+}}, %r[[FIELD]], 384;
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{[{](%r[0-9]+, ){31}%r[0-9]+[}]}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, 1, 1, 1, 1;
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned
// CHECK: wgmma.wait_group.sync.aligned 0

// REGS-NOT: {{C75[0-9][0-9]}}
// REGS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
module attributes {tile.target = "sm_90a"} {
func.func @attention_like(%q: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %k: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                          %v: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %o: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                          %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r0 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %r1 = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %s64 = tile.splat %c64 : tensor<64x1xi32>
  %rows = arith.muli %r0, %s64 : tensor<64x1xi32>
  %rowsb = tile.broadcast %rows : tensor<64x1xi32> -> tensor<64x64xi32>
  %colsb = tile.broadcast %r1 : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rowsb, %colsb : tensor<64x64xi32>
  // Q [64, 64] once; per iteration K [64, 64] (read transposed) and V [64, 64], row-major.
  %pq0 = tile.splat %q : tensor<64x64x!tile.ptr<f16>>
  %pq = tile.addptr %pq0, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %vq = tile.load %pq : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %i = %c0 to %n step %c64 iter_args(%acc1 = %zero) -> (tensor<64x64xf32>) : i32 {
    %base = arith.muli %i, %c64 : i32
    %sb = tile.splat %base : tensor<64x64xi32>
    %offi = arith.addi %off, %sb : tensor<64x64xi32>
    %pk0 = tile.splat %k : tensor<64x64x!tile.ptr<f16>>
    %pk = tile.addptr %pk0, %offi : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
    %vk = tile.load %pk : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
    %vkt = tile.trans %vk {order = array<i32: 1, 0>} : tensor<64x64xf16> -> tensor<64x64xf16>
    %s = tile.dot %vq, %vkt, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %e = math.exp2 %s : tensor<64x64xf32>
    %p = arith.truncf %e : tensor<64x64xf32> to tensor<64x64xf16>
    %pv0 = tile.splat %v : tensor<64x64x!tile.ptr<f16>>
    %pv = tile.addptr %pv0, %offi : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
    %vv = tile.load %pv : tensor<64x64x!tile.ptr<f16>> -> tensor<64x64xf16>
    %d = tile.dot %p, %vv, %acc1 : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %po0 = tile.splat %o : tensor<64x64x!tile.ptr<f32>>
  %po = tile.addptr %po0, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %po, %acc : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}
}
