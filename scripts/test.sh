#!/usr/bin/env bash
# Installs what is missing, builds everything with warnings as errors (setup.sh --werror), runs every test (lit + FileCheck, unit
# tests, ptxas on every library kernel, the examples against a fresh install, GPU tests —
# which skip with the reason where there is no GPU —, the fuzz corpora replayed). Before that,
# the sanitizer job (scripts/sanitize.sh: clang ASan + UBSan build of the CPU unit tests and both
# fuzz targets in build-sanitize/, libFuzzer $TILE_FUZZ_SECONDS s each; TILE_SANITIZE_JOB=0 skips it).
# Ends in ctest's summary of build/; exits non-zero if either run failed.
#   scripts/test.sh                 # everything (what CI runs)
#   scripts/test.sh -L cpu          # arguments go to ctest: a subset (-L label, -R regex, -N to list);
#                                   # the sanitizer job then runs only with TILE_SANITIZE_JOB=1
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# clang-format-22: the house-style test (house_style) checks every source with it.
"$root/scripts/install-debs.sh" test.sh clang-format-22
"$root/scripts/setup.sh" --werror
status=0
sanitize_default=1
[ $# -eq 0 ] || sanitize_default=0
if [[ ${TILE_SANITIZE_JOB:-$sanitize_default} != 0 ]]; then
  "$root/scripts/sanitize.sh" || { status=$?; echo "test.sh: the sanitizer job FAILED (above); running the main tests anyway"; }
fi
ctest --test-dir "$root/build" --output-on-failure -j"$(nproc)" "$@" || status=$?
exit $status
