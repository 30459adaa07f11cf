// tilec behaves like a tool: --help lists its own options and hides LLVM's backend ones;
// an unknown flag or a missing input is a one-line error and a non-zero exit.
// RUN: tilec --help | FileCheck %s --check-prefix=HELP
// RUN: not tilec --bogus-flag 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not tilec %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING

// HELP: tilec options:
// HELP: --stage=<string>
// HELP-NOT: nvptx
// HELP-NOT: --x86-
// FLAG: Unknown command line argument '--bogus-flag'
// MISSING: tilec: cannot open input file '{{.*}}tilec-cli.mlir.missing'
