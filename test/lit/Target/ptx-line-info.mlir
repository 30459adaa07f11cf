// The ops' locations (the DSL records the user's file:line on every op) become PTX .file /
// .loc directives, so compute-sanitizer, Nsight Compute and cuobjdump name the user's
// line; directives only (no DWARF sections beyond an empty one), and ptxas takes them.
// RUN: tilec %s --stage=ptx | FileCheck %s
// RUN: %if ptxas %{ tilec %s --stage=regs | FileCheck %s --check-prefix=REGS %}

// CHECK-LABEL: .entry add
// CHECK: .loc 1 10 0
// CHECK: .loc 1 15 5
// CHECK: ld.global
// CHECK: .loc 1 16 5
// CHECK-NEXT: add.rn.f32
// CHECK: .loc 1 17 5
// CHECK: st.global
// CHECK-NOT: .section .debug_info
// CHECK: .file 1 "user_kernel.cpp"
// REGS: 0 bytes spill stores
func.func @add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32> loc("user_kernel.cpp":12:5)
  %xs = tile.splat %x : tensor<512x!tile.ptr<f32>> loc("user_kernel.cpp":13:5)
  %p = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32> loc("user_kernel.cpp":13:7)
  %ns = tile.splat %n : tensor<512xi32> loc("user_kernel.cpp":14:5)
  %m = arith.cmpi slt, %r, %ns : tensor<512xi32> loc("user_kernel.cpp":14:9)
  %v = tile.load %p, %m : tensor<512x!tile.ptr<f32>>, tensor<512xi1> -> tensor<512xf32> loc("user_kernel.cpp":15:5)
  %w = arith.addf %v, %v : tensor<512xf32> loc("user_kernel.cpp":16:5)
  tile.store %p, %w, %m : tensor<512x!tile.ptr<f32>>, tensor<512xf32>, tensor<512xi1> loc("user_kernel.cpp":17:5)
  return loc("user_kernel.cpp":18:1)
} loc("user_kernel.cpp":10:1)
