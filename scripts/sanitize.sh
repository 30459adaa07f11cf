#!/usr/bin/env bash
# Host sanitizer job: builds the unit tests with AddressSanitizer + UndefinedBehaviorSanitizer
# into their own build directory (build-asan/, never mixed with build/) and runs them.
#   scripts/sanitize.sh                      # runtime + DSL unit tests (the CI job)
#   TARGETS="runtime_tests" scripts/sanitize.sh          # runtime only: no LLVM/MLIR compile
#   SANITIZE=thread TARGETS=runtime_tests BUILD=build-tsan scripts/sanitize.sh
#   JOBS=2 NICE=10 scripts/sanitize.sh       # on a shared machine
# Any sanitizer report aborts its test (-fno-sanitize-recover=all, halt_on_error), so the job
# fails; ctest prints the report. GPU tests skip here (no GPU); compute-sanitizer covers them
# on the GPU machine (tools/gpu-check.sh with SANITIZE=1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/${BUILD:-build-asan}"
sanitize="${SANITIZE:-address,undefined}"
targets="${TARGETS:-runtime_tests dsl_tests}"
jobs="${JOBS:-$(nproc)}"
nice="${NICE:-0}"

runtime_only=OFF
[[ " $targets " == *" dsl_tests "* || " $targets " == *" cpu_tests "* ]] || runtime_only=ON

if [[ ! -f "$build/build.ninja" ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DTILE_SANITIZE="$sanitize" -DTILE_RUNTIME_ONLY="$runtime_only"
fi
# shellcheck disable=SC2086
nice -n "$nice" ninja -C "$build" -j"$jobs" $targets

# LeakSanitizer stays on; UBSan prints a stack. The suppressions name third-party code only.
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs from the inline code of our
# (instrumented) files, while Debian's uninstrumented libMLIR allocates from the same slabs
# without unpoisoning: false "use-after-poison" reports in MLIR's type uniquer otherwise.
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:strict_string_checks=1:allow_user_poisoning=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/scripts/lsan.supp}"
for t in $targets; do
  [[ -x "$build/test/$t" ]] || { echo "sanitize.sh: $build/test/$t was not built" >&2; exit 1; }
done
# Unit tests of the binaries built; those of binaries not built show up as *_NOT_BUILT: skipped.
status=0
ctest --test-dir "$build" --output-on-failure -j"$jobs" -L unit -E '_NOT_BUILT' || status=$?
echo "sanitize.sh: ${sanitize} over [${targets}] -> $([[ $status == 0 ]] && echo clean || echo FINDINGS/FAILURES)"
exit $status
