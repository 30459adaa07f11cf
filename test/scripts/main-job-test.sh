#!/usr/bin/env bash
# The main job builds only what it runs: scripts/run.sh asks for tile-mnist alone, and tile-mnist's
# build needs neither the ahead-of-time library (gen_kernels_aot, ~1200 PTX variants) nor the tools;
# tile-mnist started directly trains on every core, as through run.sh.
#   main-job-test.sh <source dir> <build dir>
set -euo pipefail
src=$1 build=$2
fail() { echo "main-job-test: $*"; exit 1; }

# 1. What run.sh asks cmake to build: a stand-in cmake on PATH records it (and builds nothing).
shim=$(mktemp -d)
trap 'rm -rf "$shim"' EXIT
printf '#!/bin/sh\necho "$@" >>"%s/cmake.log"\n' "$shim" >"$shim/cmake"
chmod +x "$shim/cmake"
[ -f "$src/build/build.ninja" ] || fail "$src/build is not configured (run scripts/setup.sh)"
PATH="$shim:$PATH" "$src/scripts/run.sh" --help >"$shim/run.log" 2>&1 || fail "scripts/run.sh --help failed: $(cat "$shim/run.log")"
grep -q -- '--target tile-mnist' "$shim/cmake.log" || fail "run.sh did not build the tile-mnist target: $(cat "$shim/cmake.log")"
others=$(grep -o -- '--target [^ ]*' "$shim/cmake.log" | grep -v -- '--target tile-mnist$' || true)
[ -z "$others" ] || fail "run.sh builds more than tile-mnist: $others"
grep -q -i 'usage' "$shim/run.log" || fail "run.sh --help did not print tile-mnist's usage: $(cat "$shim/run.log")"

# 2. What building tile-mnist takes.
commands=$(ninja -C "$build" -t commands tile-mnist)
if grep -q -E 'gen_kernels_aot|kernels_aot\.cpp|tile-opt|tilec' <<<"$commands"; then
  fail "building tile-mnist also builds: $(grep -o -E 'gen_kernels_aot|kernels_aot\.cpp|tile-opt|tilec' <<<"$commands" | sort -u | tr '\n' ' ')"
fi
# 3. tile-mnist started directly, TILE_CPU_THREADS unset: every core.
out=$(env -u TILE_CPU_THREADS "$build/models/tile-mnist" --executor cpu --max-steps 1 --quiet 2>&1) ||
  fail "tile-mnist --max-steps 1 failed: $out"
grep -q "CPU executor ($(nproc) thread(s)" <<<"$out" || fail "tile-mnist did not run on all $(nproc) cores: $(head -1 <<<"$out")"

echo "main-job-test: run.sh builds tile-mnist only: $(grep -c . <<<"$commands") build commands from scratch"
