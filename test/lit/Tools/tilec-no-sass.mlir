// Without a SASS disassembler (nvdisasm, cuobjdump) --stage=sass is a one-line error and a
// non-zero exit, before anything is compiled. TILE_DUMP_DIR's dump goes on without .sass files
// and says so in one note line.
// REQUIRES: ptxas
// UNSUPPORTED: sass-disassembler
// RUN: not tilec %s --stage=sass 2>&1 | FileCheck %s --check-prefix=SASS
// RUN: rm -rf %t && env TILE_DUMP_DIR=%t tilec %s --stage=ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: ls -A %t | FileCheck %s --check-prefix=FILES

// SASS: {{^}}tilec: --stage=sass needs nvdisasm or cuobjdump, found on none of PATH, {{.*}}/usr/local/cuda/bin (--stage=regs needs only ptxas){{$}}
// SASS-NOT: {{.}}
// NOTE: {{^}}tile: TILE_DUMP_DIR: no nvdisasm or cuobjdump (looked on PATH, {{.*}}): no .sass files{{$}}
// NOTE-NOT: {{.}}
// FILES: no_sass-{{[0-9a-f]+}}.cubin
// FILES-NOT: .sass
func.func @no_sass(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32)
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
