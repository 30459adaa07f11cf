// A PTX ISA version LLVM's NVPTX backend does not know is a one-line error naming the flag
// (LLVM ignores an unknown +ptx99 feature and writes the target's oldest version: `.version 7.0`
// for sm_80, 8.0 for sm_90a); a known one is used.
// RUN: not tilec %s --ptx-version=99 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tilec --kernel=vector_add --spec=w4,p16,p16,p16,i16,c1024 --ptx-version=99 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: tilec %s --ptx-version=80 | FileCheck %s --check-prefix=KNOWN

// UNKNOWN: tilec: --ptx-version=99: PTX ISA version 99 is not one LLVM {{[0-9.]+}}'s NVPTX backend emits (it knows {{.*}}8.0, {{.*}}; 0 picks the highest)
// UNKNOWN-NOT: {{.}}
// KNOWN: .version 8.0
// KNOWN: .target sm_90a
func.func @copy(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 512 : i32} : tensor<512xi32>
  %ns = tile.splat %n : tensor<512xi32>
  %mask = arith.cmpi slt, %r, %ns : tensor<512xi32>
  %xs = tile.splat %x : tensor<512x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %xp, %mask : tensor<512x!tile.ptr<f32>>, tensor<512xi1> -> tensor<512xf32>
  %ys = tile.splat %y : tensor<512x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %yp, %v, %mask : tensor<512x!tile.ptr<f32>>, tensor<512xf32>, tensor<512xi1>
  return
}
