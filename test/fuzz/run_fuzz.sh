#!/bin/sh
# The command of the fuzz ctests (test/fuzz/CMakeLists.txt):
#   run_fuzz.sh <default-seconds> <work-dir> <fuzz-binary> <libFuzzer flags...> <corpus-dir>
# Fuzzes for $TILE_FUZZ_SECONDS (or <default-seconds>) seconds; 0 replays the corpus only
# (-runs=0). libFuzzer writes the new inputs it finds into its first corpus directory: that is
# <work-dir>/new (emptied first, so a run does not depend on the last), the checked-in corpus
# after it is only read. A crash, sanitizer report, leak, hang (-timeout) or out-of-memory exits
# non-zero, with the input saved in <work-dir>/ (crash-*, timeout-*, leak-*, oom-*; the stand-in
# driver: fuzz-failure-<pid>); rerun it as `<fuzz-binary> <file>`.
set -eu
default=$1 work=$2 binary=$3
shift 3
seconds=${TILE_FUZZ_SECONDS:-$default}
case $seconds in ''|*[!0-9]*) echo "run_fuzz.sh: TILE_FUZZ_SECONDS=$seconds is not a number of seconds" >&2; exit 2 ;; esac
rm -rf "$work/new"
mkdir -p "$work/new"
if [ "$seconds" -gt 0 ]; then limit=-max_total_time=$seconds; else limit=-runs=0; fi
exec "$binary" "$limit" -artifact_prefix="$work/" "$work/new" "$@"
