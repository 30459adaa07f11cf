#!/usr/bin/env bash
# Runs randomized GoogleTest suites over many seeds and prints every failure with its seed
# and the command that replays it (TILE_TEST_SEED, read by the tests' Seeded fixture in
# test/unit/cpu_test_util.h). CI draws one random seed per test and run; this draws many at
# once, to find the bounds that some inputs break before CI does.
#   scripts/seed-sweep.sh                           # every Seeded suite of cpu_tests, 200 seeds each
#   scripts/seed-sweep.sh -n 50 'CpuDot.*:CpuOps.*' # chosen gtest filters (one or more arguments)
#   scripts/seed-sweep.sh -s 1000 -n 20             # the fixed seeds 1000..1019 (one process per seed: slow)
#   scripts/seed-sweep.sh -r 5000                   # also 5000 programs of CpuRandomKernels (TILE_RANDOM_SEED)
#   TILE_CPU_TARGET=x86-64 scripts/seed-sweep.sh    # for the baseline CPU (the environment passes through)
# Random seeds (the default): --gtest_repeat=n in one process, so each kernel is compiled
# once, and every test draws a fresh seed per repetition, as in CI. Options: -n seeds per
# test (200), -s first fixed seed, -b test binary (build/test/cpu_tests), -j processes (1;
# the repetitions are split among them), -l log directory (a new temporary one), -r random
# programs (0). TILE_CPU_THREADS defaults to 1. Exits 1 if anything failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seeds=200 first="" binary="$root/build/test/cpu_tests" jobs=1 logs="" programs=0
usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while getopts "n:s:b:j:l:r:h" opt; do
  case $opt in
    n) seeds=$OPTARG ;; s) first=$OPTARG ;; b) binary=$OPTARG ;; j) jobs=$OPTARG ;; l) logs=$OPTARG ;;
    r) programs=$OPTARG ;; *) usage ;;
  esac
done
shift $((OPTIND - 1))
for v in "$seeds" "$jobs" "$programs" ${first:+"$first"}; do
  [[ $v =~ ^[0-9]+$ ]] || { echo "seed-sweep.sh: '$v' is not a non-negative integer (-n, -s, -j, -r)" >&2; exit 2; }
done
(( jobs >= 1 )) || { echo "seed-sweep.sh: -j must be at least 1" >&2; exit 2; }
[[ -x $binary ]] || { echo "seed-sweep.sh: no test binary at $binary (build it, or pass -b)" >&2; exit 2; }
export TILE_CPU_THREADS=${TILE_CPU_THREADS:-1}
unset TILE_TEST_SEED # a fixed seed would make every repetition the same

# Default filter: every suite whose fixture derives, directly or not, from Seeded.
if [[ $# -eq 0 ]]; then
  known=" Seeded " grew=1
  while [[ $grew == 1 ]]; do
    grew=0
    while read -r cls base; do
      if [[ $known == *" $base "* && $known != *" $cls "* ]]; then known+="$cls "; grew=1; fi
    done < <(grep -ho 'class [A-Za-z0-9_]* : public [A-Za-z0-9_]*' "$root"/test/unit/cpu_*.cpp | awk '{print $2, $5}')
  done
  filter=""
  for cls in $known; do [[ $cls == Seeded ]] || filter+="${filter:+:}$cls.*"; done
  set -- "$filter"
fi
filter=$(IFS=:; echo "$*")
if [[ -z $logs ]]; then logs=$(mktemp -d /tmp/seed-sweep.XXXXXX); else mkdir -p "$logs"; fi
echo "seed-sweep: $seeds ${first:+fixed }seeds of '$filter' ($binary, TILE_CPU_THREADS=$TILE_CPU_THREADS${TILE_CPU_TARGET:+, TILE_CPU_TARGET=$TILE_CPU_TARGET}); logs in $logs"

# Prints "FAILED seed S: Test  replay: ..." for each failed test of a log: the fixture prints
# "seed S (replay with TILE_TEST_SEED=S)" before gtest's "[  FAILED  ] Test (N ms)".
report() {
  awk -v bin="$binary" -v logfile="$1" -v fixed="${2:-}" '
    /^seed [0-9]+ \(replay with TILE_TEST_SEED=/ { seed = $2 }
    /^\[  FAILED  \] .* \([0-9]+ ms\)$/ {
      s = fixed != "" ? fixed : seed; name = $4; sub(/,$/, "", name)
      printf "FAILED seed %s: %s   replay: TILE_TEST_SEED=%s %s --gtest_filter=%s   log: %s\n", s, name, s, bin, name, logfile
      n++; seed = ""
    }
    END { if (!n) printf "FAILED: the process failed without a failed test (crash?), see %s\n", logfile }' "$1"
}

# run LOG ARGS...: the binary with ARGS; a failed run keeps its log and is reported.
run() {
  local log=$1 seed=$2
  shift 2
  if "$binary" --gtest_filter="$filter" --gtest_brief=1 "$@" >"$log" 2>&1; then rm -f "$log"; else report "$log" "$seed"; fi
}
start=$SECONDS
if [[ -n $first ]]; then
  running=0
  for ((seed = first; seed < first + seeds; ++seed)); do
    TILE_TEST_SEED=$seed run "$logs/seed-$seed.log" "$seed" &
    if (( ++running >= jobs )); then wait -n || true; ((running--)); fi
  done
  wait
else
  for ((j = 0; j < jobs; ++j)); do
    repeats=$(( seeds / jobs + (j < seeds % jobs ? 1 : 0) ))
    (( repeats > 0 )) && run "$logs/process-$j.log" "" --gtest_repeat="$repeats" &
  done
  wait
fi

if (( programs > 0 )); then
  log="$logs/random-programs.log"
  echo "seed-sweep: $programs programs of CpuRandomKernels.MatchFloat64Reference"
  if TILE_RANDOM_COUNT=$programs "$binary" --gtest_filter='CpuRandomKernels.*' >"$log" 2>&1; then
    grep -h 'random programs from seed' "$log" || true
    rm -f "$log"
  else
    grep -o 'random program, seed [0-9]* (replay: [^)]*)' "$log" | sed 's/^/FAILED /' || true
    echo "FAILED CpuRandomKernels   log: $log"
  fi
fi

failures=$(find "$logs" -name '*.log' | wc -l)
echo "seed-sweep: done in $((SECONDS - start)) s; $failures failing process(es)"
[[ $failures == 0 ]]
