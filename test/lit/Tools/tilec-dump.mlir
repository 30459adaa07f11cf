// TILE_DUMP_DIR=<dir> writes every stage of each kernel compiled as <kernel>-<hash>.<stage>,
// no temporary file left behind. The tile IR written compiles again, in tilec and tile-opt, to
// the same PTX; a second run finds its own files and says nothing; a file of one of those names
// that the dump did not write stays as it is, with one warning.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TILE_DUMP_DIR=%t tilec %s --stage=ptx -o %t.ptx
// RUN: ls -A %t | grep -v '\.sass$' | FileCheck %s --check-prefix=FILES
// RUN: diff %t.ptx %t/dumped-*.ptx
// RUN: tilec %t/dumped-*.tile.mlir --stage=ptx -o %t.again.ptx
// RUN: diff %t.ptx %t.again.ptx
// RUN: tile-opt %t/dumped-*.tile.mlir --tile-gpu-passes | FileCheck %s --check-prefix=REPARSE
// RUN: FileCheck %s --check-prefix=TILE < %t/dumped-*.tile.mlir
// RUN: FileCheck %s --check-prefix=REGS < %t/dumped-*.regs
// RUN: tilec %s --stage=regs | FileCheck %s --check-prefix=REGS
// RUN: env TILE_DUMP_DIR=%t tilec %s --stage=ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: for f in %t/dumped-*.opt.mlir; do echo "not the dump's" > $f; done
// RUN: env TILE_DUMP_DIR=%t tilec %s --stage=ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=FOREIGN
// RUN: FileCheck %s --check-prefix=KEPT < %t/dumped-*.opt.mlir

// FILES: {{^}}dumped-[[H:[0-9a-f]{16}]].cubin{{$}}
// FILES-NEXT: {{^}}dumped-[[H]].ll{{$}}
// FILES-NEXT: {{^}}dumped-[[H]].llvm.mlir{{$}}
// FILES-NEXT: {{^}}dumped-[[H]].opt.mlir{{$}}
// FILES-NEXT: {{^}}dumped-[[H]].ptx{{$}}
// FILES-NEXT: {{^}}dumped-[[H]].regs{{$}}
// FILES-NEXT: {{^}}dumped-[[H]].tile.mlir{{$}}
// FILES-NOT: {{.}}
// REPARSE: func.func @dumped
// REPARSE: tile.load {{.*}}, #blocked>
// TILE: func.func @dumped
// TILE: tile.load {{.*}} loc(
// TILE: #loc{{[0-9]*}} = loc("{{.*}}tilec-dump.mlir":
// REGS: Compiling entry function 'dumped' for 'sm_90a'
// REGS: Used {{[0-9]+}} registers
// QUIET-NOT: exists
// FOREIGN: {{^}}tile: TILE_DUMP_DIR: {{.*}}/dumped-{{[0-9a-f]+}}.opt.mlir exists and is not this dump's file; left as it is, this stage not written{{$}}
// FOREIGN-NOT: exists
// KEPT: {{^}}not the dump's{{$}}
func.func @dumped(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32)
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
