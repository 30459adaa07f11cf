// tile-opt behaves like a tool: --help lists the driver's options and the tile passes and
// hides LLVM's backend options; an unknown flag or a missing input is a one-line error and a
// non-zero exit.
// RUN: tile-opt --help | FileCheck %s --check-prefix=HELP
// RUN: not tile-opt --bogus-flag %s 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not tile-opt %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: tile-opt %s | FileCheck %s --check-prefix=OK

// HELP: tile-opt: the tile dialect's optimizer driver
// HELP: --tile-assign-layouts
// HELP: --tile-gpu-passes
// HELP-NOT: nvptx
// HELP-NOT: --x86-
// HELP-NOT: --amdgpu
// FLAG: tile-opt: Unknown command line argument '--bogus-flag'
// MISSING: tile-opt: cannot open input file '{{.*}}opt-cli.mlir.missing': no such file
// MISSING-NOT: {{.}}
// OK: func.func @empty
func.func @empty() {
  return
}
