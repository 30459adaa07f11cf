#!/usr/bin/env bash
# Builds one of examples/ against the installed package and runs it, as a user's project would be:
#   run-example.sh <example source dir> <build dir> <install prefix> <program> [runtime-only]
# runtime-only: the program must not load LLVM or MLIR (it runs where they are absent).
# Exit status: the program's (77: skipped, e.g. no GPU), or 1 when configuring or building fails.
set -euo pipefail
src=$1 bin=$2 prefix=$3 program=$4 runtime_only=${5:-}
rm -rf "$bin"
cmake -S "$src" -B "$bin" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" >"$bin.configure.log" 2>&1 ||
  { cat "$bin.configure.log"; echo "run-example: configuring $src against $prefix failed"; exit 1; }
cmake --build "$bin" || { echo "run-example: building $src failed"; exit 1; }
if [ -n "$runtime_only" ]; then
  needed=$(readelf -d "$bin/$program" | grep NEEDED || true)
  if grep -q -E 'LLVM|MLIR' <<<"$needed"; then
    echo "run-example: $program links LLVM/MLIR, but it should need only tile::runtime:"
    echo "$needed"
    exit 1
  fi
fi
exec "$bin/$program"
