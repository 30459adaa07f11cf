#!/usr/bin/env bash
# Host sanitizer + fuzzing job (scripts/test.sh runs it, so CI does). Installs Debian's clang-22
# and libclang-rt-22-dev when missing, builds with them into their own build directory
# (build-sanitize/, never mixed with build/): AddressSanitizer + UndefinedBehaviorSanitizer over
# every target, plus libFuzzer's coverage instrumentation (-DTILE_LIBFUZZER=ON). Then one ctest
# run: the CPU unit tests (runtime_tests, dsl_tests, layout_tests, layout_attr_tests,
# models_tests) and both fuzz targets under libFuzzer, $TILE_FUZZ_SECONDS (60) each, from the
# checked-in corpus (test/fuzz/corpus/, only read: new inputs go to build-sanitize/test/
# fuzz_*.work/new/). Prints ctest's summary, then each fuzzer's figures.
#   scripts/sanitize.sh                                  # the CI job
#   TILE_FUZZ_SECONDS=600 scripts/sanitize.sh            # fuzz longer (0: replay the corpus only)
#   TARGETS="runtime_tests" scripts/sanitize.sh          # runtime only: no LLVM/MLIR compile
#   TARGETS="tile-opt tilec" scripts/sanitize.sh         # the lit tests (FileCheck) under ASan + UBSan
#   SANITIZE=thread TARGETS=runtime_tests BUILD=build-tsan scripts/sanitize.sh   # no fuzzing then
#   JOBS=2 NICE=10 scripts/sanitize.sh                   # on a shared machine
# Any sanitizer report aborts its test (-fno-sanitize-recover=all, halt_on_error) and any fuzz
# crash, leak, hang or out-of-memory fails its ctest, so the job exits non-zero; ctest prints
# the report and libFuzzer the path of the saved input. GPU tests are not run here (no GPU);
# compute-sanitizer covers them on the GPU machine (scripts/gpu-check.sh with SANITIZE=1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/${BUILD:-build-sanitize}"
sanitize="${SANITIZE:-address,undefined}"
targets="${TARGETS:-runtime_tests dsl_tests layout_tests layout_attr_tests models_tests fuzz_ir_pipeline fuzz_dsl_tracer}"
jobs="${JOBS:-$(nproc)}"
nice="${NICE:-0}"
export TILE_FUZZ_SECONDS="${TILE_FUZZ_SECONDS:-60}"

"$root/scripts/install-debs.sh" sanitize.sh clang-22 libclang-rt-22-dev llvm-22-dev libmlir-22-dev mlir-22-tools cmake ninja-build libgtest-dev

# libFuzzer's instrumentation goes with ASan/UBSan builds whatever TARGETS says (so that a subset
# reuses the same objects); not with TSan or MSan.
libfuzzer=OFF
[[ ",$sanitize," =~ ^(,(address|undefined))+,$ ]] && libfuzzer=ON
# Which ctest labels the chosen binaries carry.
# tile_mnist_cli and main_job_builds_only_the_trainer (label models) need models/tile-mnist, i.e.
# the whole kernel library: not built.
# env_doc_up_to_date needs tile-env-doc (not built here); house_style and docs_links check files, not
# code: the main ctest run has all three.
runtime_only=ON labels=() skip=(_NOT_BUILT '^tile_mnist_cli$' '^main_job_builds_only_the_trainer$'
  '^env_doc_up_to_date$' '^house_style$' '^docs_links$')
for t in $targets; do
  case $t in
    runtime_tests) labels+=(unit) ;;
    dsl_tests) labels+=(unit); runtime_only=OFF ;;
    cpu_tests) labels+=(cpu); runtime_only=OFF ;;
    layout_tests|layout_attr_tests) labels+=(layout); runtime_only=OFF ;;
    models_tests) labels+=(models) ;;
    fuzz_*) labels+=(fuzz); runtime_only=OFF; fuzzing=1 ;;
    tile-opt|tilec) labels+=(lit); runtime_only=OFF ;;  # both: the lit tests use both
    *) echo "sanitize.sh: unknown target $t" >&2; exit 2 ;;
  esac
done
for f in fuzz_ir_pipeline fuzz_dsl_tracer; do [[ " $targets " == *" $f "* ]] || skip+=("^$f\$"); done
if [[ -n ${fuzzing:-} && $libfuzzer == OFF ]]; then
  echo "sanitize.sh: the fuzz targets need libFuzzer, i.e. SANITIZE=address and/or undefined, not $sanitize" >&2; exit 2
fi

# -O1 with line tables only: sanitizer stacks keep file:line, the build stays small and fast.
# No -DNDEBUG (these flags replace RelWithDebInfo's "-O2 -g -DNDEBUG"): this is the build CI makes
# with the project's assert()s on, and the passes' LLVM_DEBUG lines compiled in (tile-opt
# -debug-only=<pass> prints them here). CMakeLists.txt refuses a sanitizer build with NDEBUG.
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
      -DTILE_SANITIZE="$sanitize" -DTILE_LIBFUZZER="$libfuzzer" -DTILE_RUNTIME_ONLY="$runtime_only" >/dev/null
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
  bin="$build/test/$t"
  [[ $t == tile-opt || $t == tilec ]] && bin="$build/tools/$t/$t"
  [[ -x $bin ]] || { echo "sanitize.sh: $bin was not built" >&2; exit 1; }
done
# The lit tests' C++ syntax checks match GCC's diagnostics, not clang's.
export LIT_FILTER_OUT="${LIT_FILTER_OUT:-DSL/launch-arguments.cpp}"
# Tests of binaries not built show up as *_NOT_BUILT: skipped.
label_re="^($(IFS='|'; echo "${labels[*]}"))\$"
skip_re=$(IFS='|'; echo "${skip[*]}")
status=0
ctest --test-dir "$build" --output-on-failure -j"$jobs" -L "$label_re" -E "$skip_re" || status=$?

# Each fuzzer's figures, from its output in ctest's log: libFuzzer's last status line (cov: edges
# of the instrumented code covered, ft: features, corp: inputs in memory) and final stats.
log="$build/Testing/Temporary/LastTest.log"
if [[ -n ${fuzzing:-} && -f $log ]]; then
  awk -v secs="$TILE_FUZZ_SECONDS" '
    /^[0-9]+\/[0-9]+ Test: fuzz_/ { t = $3 }
    /^[0-9]+\/[0-9]+ Test: / && $3 !~ /^fuzz_/ { t = "" }
    t != "" && /INFO: seed corpus: files:/ { seed[t] = $5 }
    t != "" && /^#[0-9]+[ \t]+(INITED|DONE|RELOAD|NEW|REDUCE|pulse)[ \t]+cov:/ { last[t] = $0 }
    t != "" && /INITED/ { inited[t] = $0 }
    t != "" && /^stat::number_of_executed_units:/ { runs[t] = $2 }
    t != "" && /^stat::average_exec_per_sec:/ { eps[t] = $2 }
    t != "" && /^stat::new_units_added:/ { added[t] = $2 }
    t != "" && /^stat::peak_rss_mb:/ { rss[t] = $2 }
    END {
      for (t in last) {
        sub(/^#[0-9]+[ \t]+/, "", last[t]); sub(/^#[0-9]+[ \t]+/, "", inited[t])
        printf "sanitize.sh: %s: %s s, %s inputs from the corpus files, %s runs (%s/s), %s new, peak RSS %s MB\n",
               t, secs, seed[t], runs[t], eps[t], added[t], rss[t]
        printf "sanitize.sh:   after the corpus: %s\nsanitize.sh:   at the end:       %s\n", inited[t], last[t]
      }
    }' "$log"
fi
echo "sanitize.sh: ${sanitize}$([[ -n ${fuzzing:-} ]] && echo " + libFuzzer ${TILE_FUZZ_SECONDS} s") over [${targets}] -> $([[ $status == 0 ]] && echo clean || echo FINDINGS/FAILURES)"
exit $status
