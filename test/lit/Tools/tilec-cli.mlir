// tilec behaves like a tool: --help lists its own options, the --spec grammar and hides
// LLVM's backend ones; an unknown flag or stage, a --spec without --kernel or a missing input
// is a one-line error and a non-zero exit.
// RUN: tilec --help | FileCheck %s --check-prefix=HELP
// RUN: not tilec --bogus-flag 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not tilec %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not tilec %s --stage=bogus 2>&1 | FileCheck %s --check-prefix=STAGE
// RUN: not tilec %s --spec=w4,p16 2>&1 | FileCheck %s --check-prefix=SPEC

// HELP: --spec grammar:
// HELP: w<N>
// HELP: p | p16
// HELP: i | i16 | i=1
// HELP: d | d16
// HELP: f | h | b | t
// HELP: c<N>
// HELP: tilec options:
// HELP: --list
// HELP: --stage=<string>
// HELP-NOT: nvptx
// HELP-NOT: --x86-
// FLAG: Unknown command line argument '--bogus-flag'
// MISSING: tilec: cannot open input file '{{.*}}tilec-cli.mlir.missing'
// STAGE: {{^}}tilec: unknown --stage=bogus (tile | opt | llvm | ptx | sass | regs){{$}}
// STAGE-NOT: {{.}}
// SPEC: {{^}}tilec: --spec describes a library kernel: give --kernel=NAME too (tilec --list){{$}}
// SPEC-NOT: {{.}}
