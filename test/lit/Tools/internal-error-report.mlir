// A pass failing on IR the verifier accepted is a compiler bug: the message says so, names
// the pass, and points at a report file holding the kernel's IR (with locations) ready for
// `tile-opt --tile-gpu-passes`, and beside it MLIR's reproducer (the IR as the failing pass
// received it, with that pass) that `tile-opt --run-reproducer` replays to the same error.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not env TILE_DUMP_DIR=%t tilec %s --stage=ptx 2>&1 | FileCheck %s
// RUN: cat %t/tensor_argument.bug-*.mlir | FileCheck %s --check-prefix=REPORT
// RUN: cat %t/tensor_argument.bug-*.mlir | tile-opt | FileCheck %s --check-prefix=REPARSE
// RUN: cat %t/tensor_argument.repro-*.mlir | FileCheck %s --check-prefix=REPRO
// RUN: not tile-opt --run-reproducer %t/tensor_argument.repro-*.mlir 2>&1 | FileCheck %s --check-prefix=REPLAY

// CHECK: tile: internal compiler error (this is a bug): pass 'tile-assign-layouts' failed in the tile passes on kernel 'tensor_argument': {{.*}}kernel arguments must be scalars or pointers
// CHECK-NEXT: the kernel's IR and the failing pass are in {{.*}}tensor_argument.bug-{{[0-9]+}}-0.mlir
// REPORT: // tile internal compiler error (this is a bug): pass 'tile-assign-layouts' failed in the tile passes on kernel 'tensor_argument'.
// REPORT: // Reproduce: tile-opt --tile-gpu-passes <this file>
// REPORT-NEXT: // MLIR's reproducer (the IR as pass 'tile-assign-layouts' received it, with that pass): {{.*}}tensor_argument.repro-{{[0-9]+}}-0.mlir
// REPORT-NEXT: // Replay it: tile-opt --run-reproducer {{.*}}tensor_argument.repro-{{[0-9]+}}-0.mlir
// REPORT: func.func @tensor_argument
// REPARSE: func.func @tensor_argument
// REPRO: func.func @tensor_argument
// REPRO: mlir_reproducer
// REPRO: pipeline: "builtin.module({{.*}}tile-assign-layouts
// REPLAY: kernel arguments must be scalars or pointers
func.func @tensor_argument(%x: tensor<4x8xf32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  return
}
