// Masked accesses through a pointer of unknown alignment (no tile.divisibility), with a ragged
// n: scalar loads and stores, each behind a branch on its own element's mask, and masked-off
// loads yield `other` (0.0) instead of reading memory.
// RUN: tilec %s --stage=ptx | FileCheck %s

// CHECK: .visible .entry masked_unaligned(
// CHECK: .param .u64 .ptr .global .align 1 masked_unaligned_param_0
// CHECK: .param .u64 .ptr .global .align 16 masked_unaligned_param_1
// CHECK: mov.b32 {{%r[0-9]+}}, 0f00000000;
// CHECK: @{{%p[0-9]+}} bra [[SKIP1:\$L__BB0_[0-9]+]];
// CHECK: ld.global.b32 {{%r[0-9]+}}, [{{%rd[0-9]+}}];
// CHECK: [[SKIP1]]:
// CHECK: @{{%p[0-9]+}} bra
// CHECK: ld.global.b32 {{%r[0-9]+}}, [{{%rd[0-9]+}}+4];
// CHECK: @{{%p[0-9]+}} bra
// CHECK: ld.global.b32 {{%r[0-9]+}}, [{{%rd[0-9]+}}+8];
// CHECK: @{{%p[0-9]+}} bra
// CHECK: ld.global.b32 {{%r[0-9]+}}, [{{%rd[0-9]+}}+12];
// CHECK-COUNT-4: st.global.b32
// CHECK-NOT: ld.global.v
// CHECK-NOT: st.global.v
func.func @masked_unaligned(%x: !tile.ptr<f32>, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pid = tile.program_id 0 : i32
  %c512 = arith.constant 512 : i32
  %base = arith.muli %pid, %c512 : i32
  %bs = tile.splat %base : tensor<512xi32>
  %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32>
  %offs = arith.addi %bs, %r : tensor<512xi32>
  %ns = tile.splat %n : tensor<512xi32>
  %m = arith.cmpi slt, %offs, %ns : tensor<512xi32>
  %xs = tile.splat %x : tensor<512x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %zero = arith.constant dense<0.0> : tensor<512xf32>
  %v = tile.load %xp, %m, %zero : tensor<512x!tile.ptr<f32>>, tensor<512xi1>, tensor<512xf32> -> tensor<512xf32>
  %ys = tile.splat %y : tensor<512x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %offs : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %yp, %v, %m : tensor<512x!tile.ptr<f32>>, tensor<512xf32>, tensor<512xi1>
  return
}
