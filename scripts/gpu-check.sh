#!/usr/bin/env bash
# One-call GPU check. Runs ON the GPU machine, from the repo root, with .device/ carried (staged here by
# scripts/gpu-bundle.sh):
#     bash .device/gpu-check.sh
# SANITIZE=1 also runs compute-sanitizer (memcheck, racecheck, synccheck) over the GPU test binaries;
# SANITIZE_ONLY=1 runs only that (and the planted-bug line check): for a device call of its own.
# PROFILE="regex@skip ..." profiles one launch per entry with Nsight Compute (see its section below).
# BENCH_ONLY="name ..." runs only those benchmarks after the tests (e.g. "bench_attention attention_torch_bench");
# TESTS_ONLY="name ..." only those test binaries (e.g. "attention_gpu_tests").
# ANCHORS_ONLY=1 runs only bench_anchors (ours against cuBLAS/cuBLASLt and cuDNN in one process, interleaved,
# with NVML's clocks and power; about a minute) and prints its table: ANCHORS_ONLY=1 bash .device/gpu-check.sh
# (ANCHORS_FILTER="matmul f16" and ANCHORS_ROUNDS=N pass its FILTER and --rounds).
# Runs every *_gpu_tests binary in .device/ (gtest, brief), then bench_kernels, bench_conv, bench_anchors and PyTorch's
# convolutions (bench/torch_conv_bench.py), bench_train_step and PyTorch's training step
# (bench/torch_train_step_bench.py), then the PyTorch/Triton anchors (bench/torch_triton_bench.py), then the
# attention forward and backward: bench_attention (its forward rows in turns with cuDNN's fused attention, in process)
# and PyTorch's SDPA / Triton's (bench/attention_torch_bench.py);
# writes full logs to $OUT (or a temp dir), and prints a summary last.
# Exit status: non-zero if any test failed, crashed, timed out or was skipped (GPU tests skip only where
# no GPU is usable, so on the GPU machine a skip means nothing was checked). Benchmarks never fail the check.
# Per-step timeouts (150 s per test binary, 60 s bench_kernels, 300 s bench_attention, 240 s bench_anchors, 150 s python, 300 s the PyTorch training step,
# which compiles with torch.compile, 300 s the attention anchors) bound the worst case; a full run no longer fits
# one 10-minute device call (docs/gpu-machine.md). bench_attention takes
# 100-150 s with its in-process cuDNN anchors; the attention anchors' Triton autotuning about two minutes, their
# backward about one.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LOGS=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX")}
mkdir -p "$LOGS"
PY=${PYTHON:-python3}
TEST_TIMEOUT=${TEST_TIMEOUT:-150}
BENCH_TIMEOUT=${BENCH_TIMEOUT:-60}
PY_TIMEOUT=${PY_TIMEOUT:-150}
TRAIN_PY_TIMEOUT=${TRAIN_PY_TIMEOUT:-300}
ATTN_PY_TIMEOUT=${ATTN_PY_TIMEOUT:-300}  # forward autotuning (~105 s cold) and the backward (~60 s)
ANCHOR_TIMEOUT=${ANCHOR_TIMEOUT:-240}
START=$SECONDS

if command -v nvidia-smi >/dev/null; then
  SMI=$(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv,noheader 2>&1 | head -1)
else
  SMI="nvidia-smi not found"
fi
echo "gpu: $SMI"
echo "logs: $LOGS"

status=0
summary=()

# The executables (one tar) and the differential bundle travel xz-compressed (scripts/gpu-bundle.sh: the
# AOT PTX table every executable embeds is stored about once in one stream with a large dictionary):
# unpack them next to this script, with xz or, where it is missing, Python's lzma.
unxz_to() {  # file.xz destination
  xz -dc "$1" >"$2" 2>/dev/null ||
    python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$1" "$2"
}
if [ -f "$HERE/executables.tar.xz" ]; then
  unxz_to "$HERE/executables.tar.xz" "$HERE/executables.tar" && tar -xf "$HERE/executables.tar" -C "$HERE" &&
    rm -f "$HERE/executables.tar" || echo "gpu-check: cannot unpack $HERE/executables.tar.xz"
fi

# --- tests --------------------------------------------------------------------------------------------
# The differential bundle: unpacked where diff_gpu_tests looks (TILE_DIFF_BUNDLE).
if [ -f "$HERE/diff.bundle.xz" ] && [ "${ANCHORS_ONLY:-0}" != 1 ]; then
  export TILE_DIFF_BUNDLE=$(mktemp "${TMPDIR:-/tmp}/diff.bundle.XXXXXX")
  unxz_to "$HERE/diff.bundle.xz" "$TILE_DIFF_BUNDLE"
fi
# cudnn_gpu_tests and bench_anchors dlopen cuDNN, cuBLAS and cuBLASLt: PyTorch's copies (cuDNN 9.19, the
# headers the build machine compiled against; the system's is older), found through the Python that holds
# PyTorch. (bench_anchors' NVML is the driver's libnvidia-ml.so.1, on the loader's path with nvidia-smi.)
# cuDNN's fused attention (attention_gpu_tests, bench_attention) runs engines it compiles at run time: cuDNN
# dlopens libnvrtc.so.13 for them, PyTorch's copy where it has one, else the toolkit's (appended last).
NV_ROOT=$("$PY" -c 'import nvidia; print(list(nvidia.__path__)[0])' 2>/dev/null)
NV_LIBS=""
for lib in libcudnn.so.9 libcublas.so.13 libcublasLt.so.13 libnvrtc.so.13; do
  f=$([ -n "$NV_ROOT" ] && find "$NV_ROOT" -name "$lib" -print -quit)
  d=$([ -n "$f" ] && dirname "$f")
  [ -n "$d" ] && case ":$NV_LIBS:" in *":$d:"*) ;; *) NV_LIBS="$NV_LIBS${NV_LIBS:+:}$d" ;; esac
done
if [ -n "$NV_LIBS" ]; then
  export LD_LIBRARY_PATH="$NV_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  echo "PyTorch's cuDNN/cuBLAS not found: cudnn_gpu_tests uses whatever libcudnn.so.9 the loader finds"
fi
NVRTC=$([ -n "$NV_ROOT" ] && find "$NV_ROOT" -name libnvrtc.so.13 -print -quit)
if [ -z "$NVRTC" ] && [ -f "${CUDA_HOME:-/usr/local/cuda}/lib64/libnvrtc.so.13" ]; then
  export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}${CUDA_HOME:-/usr/local/cuda}/lib64"
fi

# bench_anchors' table (the lines starting "anchor "; every number per shape: anchor-detail lines in its log).
anchor_summary() {
  local log=$LOGS/bench_anchors.log
  [ -f "$log" ] || { echo "bench_anchors: not run"; return; }
  grep -h '^bench_anchors:' "$log"
  grep -h '^anchor[ :]' "$log"
}
if [ "${ANCHORS_ONLY:-0}" = 1 ]; then
  if [ -x "$HERE/bench_anchors" ]; then
    timeout -k 5 "$ANCHOR_TIMEOUT" "$HERE/bench_anchors" ${ANCHORS_ROUNDS:+--rounds "$ANCHORS_ROUNDS"} \
      ${ANCHORS_FILTER:+"$ANCHORS_FILTER"} >"$LOGS/bench_anchors.log" 2>&1
    rc=$?
    grep -h '^anchor-lt\|^anchor-cudnn' "$LOGS/bench_anchors.log"
    [ "$rc" -ne 0 ] && { echo "---- bench_anchors exited $rc (full log: $LOGS/bench_anchors.log)"; tail -5 "$LOGS/bench_anchors.log"; }
  fi
  echo
  echo "==== gpu-check ANCHORS_ONLY ($((SECONDS - START)) s) - $SMI"
  if [ -x "$HERE/bench_anchors" ]; then anchor_summary; else echo "bench_anchors missing in $HERE (scripts/gpu-bundle.sh)"; fi
  exit 0
fi

shopt -s nullglob
tests=("$HERE"/*_gpu_tests)
full=1
[ "${SANITIZE_ONLY:-0}" = 1 ] && full=0 SANITIZE=1 && tests=()
# TESTS_ONLY="attention_gpu_tests ...": run only the named test binaries (a call of its own).
if [ -n "${TESTS_ONLY:-}" ]; then
  kept=()
  for bin in "${tests[@]}"; do [[ " $TESTS_ONLY " == *" $(basename "$bin") "* ]] && kept+=("$bin"); done
  tests=("${kept[@]}")
fi
if [ ${#tests[@]} -eq 0 ] && [ "$full" = 1 ]; then
  echo "no *_gpu_tests binaries in $HERE (run scripts/gpu-bundle.sh on the build machine)"
  status=1
fi
for bin in "${tests[@]}"; do
  name=$(basename "$bin")
  log="$LOGS/$name.log"
  timeout -k 5 "$TEST_TIMEOUT" "$bin" --gtest_brief=1 --gtest_color=no >"$log" 2>&1
  rc=$?
  # gtest's closing summary: "[  PASSED  ] N tests.", "[  FAILED  ] N tests, listed below:", "[  SKIPPED ] N tests,".
  passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\..*/\1/p' "$log" | tail -1)
  failed=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\{0,1\}, listed below.*/\1/p' "$log" | tail -1)
  skipped=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) tests\{0,1\}.*/\1/p' "$log" | tail -1)
  passed=${passed:-0} failed=${failed:-0} skipped=${skipped:-0}
  note=""
  dump=0
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    note="TIMED OUT after ${TEST_TIMEOUT}s" dump=1
  elif [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
    note="CRASHED (exit $rc)" dump=1
  elif [ "$rc" -ne 0 ]; then
    dump=1
  elif [ "$skipped" -gt 0 ]; then
    # GPU tests skip only where no GPU is usable: here that means they checked nothing.
    note="SKIPPED: $(grep -m1 -A1 ': Skipped$' "$log" | tail -1)"
  fi
  [ -n "$note" ] && status=1
  if [ "$dump" -eq 1 ]; then
    status=1
    echo "---- $name: failures (full log: $log)"
    # Brief mode prints only failures; cap what reaches the (tail-limited) console.
    if [ "$failed" -gt 0 ]; then
      grep -v '^\[==========\]\|^\[  PASSED  \]\|^\[  SKIPPED \]\|^Running main()' "$log" | head -60
    else
      tail -20 "$log"  # crashed or hung: the end shows how far it got
    fi
  fi
  summary+=("$(printf '%-22s passed %4s  failed %4s  skipped %4s  %s' "$name" "$passed" "$failed" "$skipped" "$note")")
  echo "$name done ($((SECONDS - START)) s)"
done

# --- line info: compute-sanitizer names the DSL line of a planted bug --------------------------------------
# planted_oob_store writes one float past its buffer (test/kernels/PlantedBugKernels.h); memcheck must report
# an invalid global write at the source line marked PLANTED-OOB-STORE, read from the carried source itself.
SAN=${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer
PLANTED_SRC=$HERE/../test/kernels/PlantedBugKernels.h
planted_line="skipped (no planted_oob_store, $PLANTED_SRC or compute-sanitizer)"
if [ -x "$HERE/planted_oob_store" ] && [ -f "$PLANTED_SRC" ] && [ -x "$SAN" ]; then
  want="PlantedBugKernels.h:$(grep -n 'PLANTED-OOB-STORE' "$PLANTED_SRC" | head -1 | cut -d: -f1)"
  log="$LOGS/planted_oob_store.log"
  timeout -k 5 120 "$SAN" --tool memcheck --error-exitcode 3 "$HERE/planted_oob_store" >"$log" 2>&1
  rc=$?
  at=$(grep -A1 -m1 'Invalid __global__ write' "$log" | tail -1 | sed 's/^=* *//')
  if [ "$rc" -eq 3 ] && grep -q "$want" <<<"$at"; then
    planted_line="memcheck reports the planted out-of-bounds store $at"
  else
    status=1
    planted_line="FAILED: expected memcheck (exit 3) to report an invalid global write at $want; exit $rc, got '${at:-nothing}' ($log)"
  fi
elif [ -x "$HERE/planted_oob_store" ]; then
  status=1  # carried to be checked: a missing tool or source is a failure, not a pass
  planted_line="FAILED: $SAN or $PLANTED_SRC missing"
fi

# --- compute-sanitizer (SANITIZE=1) ------------------------------------------------------------------------
# memcheck, racecheck and synccheck over every GPU test binary; any report fails the check. API errors are
# not reported: the fault tests provoke them on purpose and check them themselves. Too long for one device
# call in full: SANITIZE_TOOLS and SANITIZE_BINARIES pick a part, SANITIZE_FILTER_<binary> a gtest filter.
sanitize_line="not run (SANITIZE=1 runs memcheck, racecheck and synccheck)"
if [ "${SANITIZE:-0}" = 1 ]; then
  sanitize_line=""
  # The autotuner's tests time ~800 launches of the same kernels: too slow under the tools.
  : "${SANITIZE_FILTER_kernels_gpu_tests:=-MatmulAutotuneGpu.*}"
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
    for name in ${SANITIZE_BINARIES:-runtime_gpu_tests kernels_gpu_tests test_kernels_gpu_tests diff_gpu_tests models_gpu_tests cudnn_gpu_tests}; do
      [ -x "$HERE/$name" ] || continue
      log="$LOGS/sanitize-$tool-$name.log"
      filter_var="SANITIZE_FILTER_$name"
      filter=${!filter_var:-}
      t0=$SECONDS
      timeout -k 5 "${SANITIZE_TIMEOUT:-300}" "$SAN" --tool "$tool" --report-api-errors no --error-exitcode 3 \
        "$HERE/$name" --gtest_brief=1 "--gtest_filter=${filter:-*}" >"$log" 2>&1  # quoted: nullglob is on
      rc=$?
      [ "$rc" -ne 0 ] && status=1
      tests=$(grep -o '\[  PASSED  \] [0-9]* test' "$log" | grep -o '[0-9]*' | tail -1)
      echo "---- $tool $name (exit $rc, $((SECONDS - t0)) s):"; grep -E 'SUMMARY|PASSED|FAILED|SKIPPED|Invalid|hazard' "$log" | head -8
      sanitize_line+="$tool $name${filter:+ ($filter)}: $([ "$rc" -eq 0 ] && echo "clean, ${tests:-?} tests" ||
        echo "FAILED (exit $rc, $(grep -m1 'ERROR SUMMARY\|RACECHECK SUMMARY' "$log"), $log)") in $((SECONDS - t0)) s; "
    done
  done
  echo "compute-sanitizer done ($((SECONDS - START)) s)"
fi

# --- Nsight Compute (PROFILE="regex@skip ..."): gpu-check-profile.sh, beside this script ---------------
profile_line="not run (PROFILE=\"regex@skip ...\")"
if [ -n "${PROFILE:-}" ]; then
  if [ -f "$HERE/gpu-check-profile.sh" ]; then . "$HERE/gpu-check-profile.sh"; else profile_line="gpu-check-profile.sh missing in $HERE"; fi
fi

# --- the MNIST CNN: one epoch on the real data (runtime-only trainer) ------------------------------------
mnist_line="skipped (no tile-mnist-aot or .device/mnist)"
if [ "$full" = 1 ] && [ -x "$HERE/tile-mnist-aot" ] && [ -d "$HERE/mnist" ]; then
  MNIST_DIR=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-mnist.XXXXXX")
  for gz in "$HERE"/mnist/*.gz; do gunzip -c "$gz" >"$MNIST_DIR/$(basename "$gz" .gz)"; done
  t0=$SECONDS
  timeout -k 5 180 "$HERE/tile-mnist-aot" --epochs 1 --quiet --data-dir "$MNIST_DIR" >"$LOGS/tile-mnist.log" 2>&1
  rc=$?
  acc=$(grep -o 'test accuracy: [0-9.]*%' "$LOGS/tile-mnist.log" | tail -1)
  if [ "$rc" -ne 0 ] || [ -z "$acc" ]; then
    status=1
    mnist_line="FAILED (exit $rc): $(tail -3 "$LOGS/tile-mnist.log" | tr '\n' ' ')"
  else
    mnist_line="1 epoch, batch 64, lr 0.01, seed 0: $acc in $((SECONDS - t0)) s wall (load, train, test)"
  fi
  echo "tile-mnist done ($((SECONDS - START)) s)"
fi

# --- examples/aot: a user's project, its kernels compiled ahead of time by tile_add_aot_kernels ---------
example_line="skipped (no softmax_aot)"
if [ -x "$HERE/softmax_aot" ]; then
  timeout -k 5 60 "$HERE/softmax_aot" >"$LOGS/softmax_aot.log" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ]; then
    example_line=$(tail -1 "$LOGS/softmax_aot.log")
  else
    status=1
    example_line="FAILED (exit $rc): $(tail -2 "$LOGS/softmax_aot.log" | tr '\n' ' ')"
  fi
fi

# --- SASS of the ahead-of-time PTX ------------------------------------------------------------------------
# The build machine has no disassembler: here ptxas + cuobjdump show whether the 16-byte accesses the PTX
# asks for survive into SASS (LDG.E.128 / STG.E.128) and that no local memory (LDL/STL) appears.
sass_line=""
SASS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-sass.XXXXXX") # not $OUT: only a few files come back
CUDA_BIN=${CUDA_HOME:-/usr/local/cuda}/bin
if [ "$full" = 1 ] && [ -d "$HERE/ptx" ] && [ -x "$CUDA_BIN/ptxas" ] && [ -x "$CUDA_BIN/cuobjdump" ]; then
  for ptx in "$HERE"/ptx/*.ptx; do
    name=$(basename "$ptx" .ptx)
    cubin="$SASS_DIR/$name.cubin"
    arch=$(grep -m1 -o '^\.target sm_[0-9]*a\?' "$ptx" | cut -d' ' -f2)
    if "$CUDA_BIN/ptxas" -v -arch="${arch:-sm_90}" -lineinfo "$ptx" -o "$cubin" >"$SASS_DIR/$name.ptxas.log" 2>&1; then
      "$CUDA_BIN/cuobjdump" -sass "$cubin" >"$SASS_DIR/$name.sass" 2>&1
      ldg=$(grep -c 'LDG.E.128' "$SASS_DIR/$name.sass"); stg=$(grep -c 'STG.E.128' "$SASS_DIR/$name.sass")
      local_mem=$(grep -cE '\b(LDL|STL)\b' "$SASS_DIR/$name.sass")
      hmma=$(grep -c 'HMMA' "$SASS_DIR/$name.sass"); hgmma=$(grep -c 'HGMMA' "$SASS_DIR/$name.sass")
      utma=$(grep -c 'UTMALDG' "$SASS_DIR/$name.sass"); utmast=$(grep -c 'UTMASTG' "$SASS_DIR/$name.sass")
      # wgmma with its A operand in registers (attention's P): HGMMA.<shape> Rd, Ra, gdesc[...].
      hgmma_rs=$(grep -cE 'HGMMA[.A-Z0-9x]* R[0-9]+, R[0-9]+' "$SASS_DIR/$name.sass")
      regs=$(grep -o 'Used [0-9]* registers' "$SASS_DIR/$name.ptxas.log" | head -1 | grep -o '[0-9]*')
      # Warnings, and ptxas's "Potential Performance Loss" notes (C7514: wgmmas serialised).
      warnings=$(grep -c 'warning\|Performance Loss' "$SASS_DIR/$name.ptxas.log")
      # The PTX's .loc directives survive into the SASS: the DSL source lines nvdisasm names.
      lines=$("$CUDA_BIN/nvdisasm" --print-line-info "$cubin" 2>/dev/null | grep -o 'line [0-9]*' | sort -u | wc -l)
      # The file most instructions come from (the first named is the kernel's declaration site).
      file=$("$CUDA_BIN/nvdisasm" --print-line-info "$cubin" 2>/dev/null | grep -o 'File "[^"]*"' | sort | uniq -c |
        sort -rn | head -1 | sed 's|.*/||; s|"||g')
      sass_line+="$(printf '%s (%s): %s LDG.E.128, %s STG.E.128, %s HMMA, %s HGMMA (%s register A), %s UTMALDG, %s UTMASTG, %s LDL/STL, %s registers, %s ptxas warnings, %s DSL lines of %s; ' \
        "$name" "$arch" "$ldg" "$stg" "$hmma" "$hgmma" "$hgmma_rs" "$utma" "$utmast" "$local_mem" "${regs:-?}" "$warnings" "$lines" "${file:-?}")"
    else
      sass_line+="$name: ptxas failed: $(head -c 300 "$SASS_DIR/$name.ptxas.log"); "
    fi
  done
else
  sass_line="skipped (no .device/ptx, ptxas or cuobjdump)"
fi

# --- benchmarks ---------------------------------------------------------------------------------------
run_bench() {  # name timeout command...: log to $LOGS/name.log, one status line
  local name=$1 limit=$2
  shift 2
  # BENCH_ONLY="bench_attention attention_torch_bench": run only the named benchmarks (a call of its own).
  if [ -n "${BENCH_ONLY:-}" ] && [[ " $BENCH_ONLY " != *" $name "* ]]; then
    echo "$name skipped (BENCH_ONLY)"
    return
  fi
  timeout -k 5 "$limit" "$@" >"$LOGS/$name.log" 2>&1
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "---- $name exited $rc (full log: $LOGS/$name.log)"
    tail -15 "$LOGS/$name.log"
  fi
  echo "$name done ($((SECONDS - START)) s)"
}

if [ "$full" = 0 ]; then
  echo "benchmarks skipped (SANITIZE_ONLY=1)"
elif [ -x "$HERE/bench_kernels" ]; then
  run_bench bench_kernels "$BENCH_TIMEOUT" "$HERE/bench_kernels"
else
  echo "bench_kernels missing in $HERE"
fi
[ "$full" = 1 ] && [ -x "$HERE/bench_conv" ] && run_bench bench_conv "$BENCH_TIMEOUT" "$HERE/bench_conv"
[ "$full" = 1 ] && [ -x "$HERE/bench_anchors" ] && run_bench bench_anchors "$ANCHOR_TIMEOUT" "$HERE/bench_anchors"
if [ "$full" = 1 ] && command -v "$PY" >/dev/null && [ -f "$HERE/torch_conv_bench.py" ]; then
  PYTHONUNBUFFERED=1 run_bench torch_conv_bench "$PY_TIMEOUT" "$PY" "$HERE/torch_conv_bench.py"
fi
[ "$full" = 1 ] && [ -x "$HERE/bench_train_step" ] && run_bench bench_train_step "$BENCH_TIMEOUT" "$HERE/bench_train_step"
if [ "$full" = 1 ] && command -v "$PY" >/dev/null && [ -f "$HERE/torch_train_step_bench.py" ]; then
  PYTHONUNBUFFERED=1 run_bench torch_train_step_bench "$TRAIN_PY_TIMEOUT" "$PY" "$HERE/torch_train_step_bench.py"
elif [ "$full" = 1 ]; then
  echo "torch_train_step_bench skipped ($PY or $HERE/torch_train_step_bench.py missing)"
fi
if [ "$full" = 1 ] && command -v "$PY" >/dev/null && [ -f "$HERE/torch_triton_bench.py" ]; then
  PYTHONUNBUFFERED=1 run_bench torch_triton_bench "$PY_TIMEOUT" "$PY" "$HERE/torch_triton_bench.py"
else
  echo "torch_triton_bench skipped ($PY or $HERE/torch_triton_bench.py missing)"
fi
# The attention forward and backward at FlashAttention's shapes: ours, then PyTorch's SDPA (cuDNN, flash) and
# Triton's tutorial kernels (the forward autotuned: most of its time), tabulated together in the summary.
if [ "$full" = 1 ]; then
  [ -x "$HERE/bench_attention" ] && run_bench bench_attention "${ATTN_BENCH_TIMEOUT:-300}" "$HERE/bench_attention"
  if command -v "$PY" >/dev/null && [ -f "$HERE/attention_torch_bench.py" ]; then
    PYTHONUNBUFFERED=1 run_bench attention_torch_bench "$ATTN_PY_TIMEOUT" "$PY" "$HERE/attention_torch_bench.py"
  else
    echo "attention_torch_bench skipped ($PY or $HERE/attention_torch_bench.py missing)"
  fi
fi

# --- summary ------------------------------------------------------------------------------------------
echo
echo "==== gpu-check summary ($((SECONDS - START)) s) - $SMI"
for line in "${summary[@]}"; do echo "$line"; done
echo "mnist: $mnist_line"
echo "example: $example_line"
echo "line info: $planted_line"
echo "sanitizers: $sanitize_line"
echo "profile: $profile_line"
# Each layer against cuDNN/cuBLAS: the largest relative error and where (all lines: cudnn_gpu_tests.log).
grep -h "^cudnn-check" "$LOGS/cudnn_gpu_tests.log" 2>/dev/null | awk '/oracle:/ { print; next } { n++; e = $(NF); if (e + 0 >= worst + 0) { worst = e; at = $0 } } END { if (n) printf "cudnn-check: %d comparisons, worst rel err %s (%s)\n", n, worst, at }'
# The attention forward and backward against cuDNN's fused attention (attention_gpu_tests): the largest O error,
# the largest normwise dQ/dK/dV error (both backward modes), and every case cuDNN refused (its reason).
grep -h "^cudnn-attn-check" "$LOGS/attention_gpu_tests.log" 2>/dev/null | awk '
  / skipped: / { print; next }
  { n++; e = $0; sub(/.*o max rel err /, "", e); sub(/ .*/, "", e)
    if (worst != "nan" && (e == "nan" || e + 0 >= worst + 0)) { worst = e; at = $2 " " $3 " " $4 " " $5 } }
  END { if (n) printf "cudnn-attn-check: %d cases against cuDNN, worst o max rel err %s (%s)\n", n, worst, at }'
grep -h "^cudnn-attn-bwd-check" "$LOGS/attention_gpu_tests.log" 2>/dev/null | awk '
  / skipped: / { print; next }
  { n++; e = $0; sub(/.*normwise /, "", e); sub(/ \(tol.*/, "", e); split(e, f, " ")  # dq <e> dk <e> dv <e>
    for (i = 2; i <= 6; i += 2)
      if (worst != "nan" && (f[i] == "nan" || f[i] + 0 >= worst + 0)) { worst = f[i]; at = $2 " " $3 " " $4 " " $5 " " $6 " " f[i - 1] } }
  END { if (n) printf "cudnn-attn-bwd-check: %d cases x modes against cuDNN, worst normwise gradient error %s (%s)\n", \
    n, worst, at }'
cat "$LOGS"/bench_kernels.log "$LOGS"/torch_triton_bench.log 2>/dev/null | grep '^RESULT ' | awk '
  # RESULT <impl>_<op> <shape> <gbps> <us>, impl in tile/torch/triton.
  {
    impl = $2; sub(/_.*/, "", impl); op = substr($2, length(impl) + 2)
    k = op SUBSEP $3
    gb[impl, k] = $4; us[impl, k] = $5
    if (!(k in seen) && (op == "copy" || op == "add" || op == "transpose" || op == "softmax" || op == "layernorm")) {
      seen[k] = 1; order[++n] = k
    }
    if (impl == "tile" && op == "copy") copy = $4
    if (op ~ /^matmul_/ && !(k in seenmm)) { seenmm[k] = 1; mm[++nmm] = k }
  }
  function cell(impl, k) { return ((impl, k) in gb) ? sprintf("%9.1f", gb[impl, k]) : sprintf("%9s", "-") }
  function t(impl, op, scale) {
    for (key in us) { split(key, p, SUBSEP); if (p[1] == impl && p[2] == op) return sprintf("%.1f", us[key] / scale) }
    return "-"
  }
  END {
    printf "%-10s %-12s %9s %9s %9s %9s %9s\n", "GB/s", "shape", "tile", "copy", "torch", "triton", "tile/copy"
    for (i = 1; i <= n; i++) {
      split(order[i], p, SUBSEP)
      pct = ((("tile", order[i]) in gb) && copy > 0) ? sprintf("%8.1f%%", 100 * gb["tile", order[i]] / copy) : sprintf("%9s", "-")
      printf "%-10s %-12s %s %9s %s %s %s\n", p[1], p[2], cell("tile", order[i]), (copy ? sprintf("%9.1f", copy) : "-"), \
        cell("torch", order[i]), cell("triton", order[i]), pct
    }
    printf "%-12s %-6s %9s %9s %9s %9s\n", "TFLOP/s", "n", "tile", "torch", "triton", "tile/torch"
    for (i = 1; i <= nmm; i++) {
      split(mm[i], p, SUBSEP)
      pct = ((("tile", mm[i]) in gb) && (("torch", mm[i]) in gb) && gb["torch", mm[i]] > 0) ? \
        sprintf("%8.1f%%", 100 * gb["tile", mm[i]] / gb["torch", mm[i]]) : sprintf("%9s", "-")
      printf "%-12s %-6s %s %s %s %s\n", p[1], p[2], cell("tile", mm[i]), cell("torch", mm[i]), cell("triton", mm[i]), pct
    }
    printf "host us per cached launch:  tile %s  torch %s  triton %s\n", t("tile", "launch_host", 1), \
      t("torch", "launch_host", 1), t("triton", "launch_host", 1)
    printf "cold first launch ms:  tile add %s softmax %s (driver JIT of AOT PTX) | triton add %s softmax %s (compile, init %s)\n", \
      t("tile", "cold_add", 1000), t("tile", "cold_softmax", 1000), t("triton", "cold_add", 1000), \
      t("triton", "cold_softmax", 1000), t("triton", "init", 1000)
  }'
# The MNIST convolutions, ours (the policy's tile, and the fastest declared tile where it differs) next to
# PyTorch's cuDNN, by batch, layer, pass and precision (all tiles: bench_conv.log).
cat "$LOGS/bench_conv.log" "$LOGS/torch_conv_bench.log" 2>/dev/null | awk '
  /^conv / {
    k = $2 " " $3 " batch " $5 " " $7
    if (!(k in seen)) { seen[k] = 1; order[++n] = k }
    us = $9 + 0
    if ($6 == "torch") torch[k] = us
    else {
      if ($NF == "policy") { pol[k] = us; poltile[k] = $8 }
      if (!(k in best) || us < best[k]) { best[k] = us; besttile[k] = $8 }
    }
  }
  END {
    for (i = 1; i <= n; i++) {
      k = order[i]
      printf "conv %-32s ours %7.1f us (%s)  best %7.1f us (%s)  cudnn %7s us\n", k, pol[k], poltile[k], best[k],         besttile[k], (k in torch) ? sprintf("%.1f", torch[k]) : "-"
    }
  }'
# ms per MNIST training step, batch by batch: ours (graph, no graph), the step's work and floor, then PyTorch's
# (eager, graph, compile); sort -s keeps each log's order within a batch.
grep -h '^train-step' "$LOGS/bench_train_step.log" "$LOGS/torch_train_step_bench.log" 2>/dev/null | sort -s -n -k3,3
# The attention forward, then the backward (its FLOPs 2.5 times the forward's, FlashAttention's convention), TFLOP/s
# by op and B x H x S: ours; cuDNN's fused attention in bench_attention's process (cudnn-ip: same buffers, timed in
# turns with ours, the forward and the deterministic backward (bwd) at seqlen 4096 and 16384; the anchor); PyTorch's
# SDPA backends in another process (t-cudnn, t-flash: indicative only); Triton's tutorial kernels (tl.load, and
# tensor descriptors as tri-tma, forward only); tile/triton against the faster Triton variant. Skips, the Triton checks and autotuning choices:
# attention_torch_bench.log; cuDNN's engines, ours' error against it and the clocks: the cudnn-attn and clocks
# lines of bench_attention.log.
cat "$LOGS/bench_attention.log" "$LOGS/attention_torch_bench.log" 2>/dev/null | grep '^RESULT .*_attn_' | awk '
  # RESULT <impl>_attn_<op> <BxHxS> <TFLOP/s> <us>, impl in tile, cudnn, torch-cudnn, torch-flash, triton, triton-tma;
  # op attn_fwd_... or attn_bwd_...: the rows of each pass together, in the order they first appear.
  {
    i = index($2, "_attn_"); impl = substr($2, 1, i - 1); k = substr($2, i + 1) SUBSEP $3
    # Sweep tiles (bench_attention: tile-<tile>) only feed the best-tile lines below the table.
    if (impl ~ /^tile-/) {
      if ($4 + 0 > best[k] + 0) { best[k] = $4; bestTile[k] = substr(impl, 6) }
      if (!(k in swept)) { swept[k] = 1; sweepOrder[++ns] = k }
      next
    }
    tf[impl, k] = $4
    if (!(k in seen)) { seen[k] = 1; if (k ~ /^attn_bwd_/) bwd[++nb] = k; else fwd[++nf] = k }
  }
  function v(impl, k) { return ((impl, k) in tf) ? tf[impl, k] + 0 : 0 }
  function cell(impl, k) { return ((impl, k) in tf) ? sprintf("%9.1f", tf[impl, k]) : sprintf("%9s", "-") }
  function pct(a, b) { return (a > 0 && b > 0) ? sprintf("%10.1f%%", 100 * a / b) : sprintf("%11s", "-") }
  function row(k) {
    split(k, p, SUBSEP)
    tri = v("triton", k) > v("triton-tma", k) ? v("triton", k) : v("triton-tma", k)
    printf "%-26s %-10s %s %s %s %s %s %s %s %s %s\n", p[1], p[2], cell("tile", k), cell("cudnn", k), \
      cell("torch-cudnn", k), cell("torch-flash", k), cell("triton", k), cell("triton-tma", k), \
      pct(v("tile", k), v("cudnn", k)), pct(v("tile", k), v("torch-cudnn", k)), pct(v("tile", k), tri)
  }
  END {
    if (!nf && !nb) exit
    printf "%-26s %-10s %9s %9s %9s %9s %9s %9s %11s %11s %11s\n", "attention TFLOP/s", "BxHxS", "tile", "cudnn-ip", \
      "t-cudnn", "t-flash", "triton", "tri-tma", "tile/cud-ip", "tile/t-cud", "tile/triton"
    for (j = 1; j <= nf; j++) row(fwd[j])
    for (j = 1; j <= nb; j++) row(bwd[j])
    for (j = 1; j <= ns; j++) {
      k = sweepOrder[j]; split(k, p, SUBSEP)
      printf "attention sweep: %-24s %-10s library tile %s, best declared tile %s %.1f\n", p[1], p[2], \
        cell("tile", k), bestTile[k], best[k]
    }
  }'
# bench_attention's forward and backward rows against cuDNN in its process: the rows cuDNN refused (why), ours'
# largest O error and largest normwise dQ/dK/dV error against cuDNN on the bench's inputs, and the lowest SM clock
# NVML saw while they were timed.
grep -h '^skip cudnn_attn' "$LOGS/bench_attention.log" 2>/dev/null | head -4
grep -h '^cudnn-attn \|^clocks cudnn_attn' "$LOGS/bench_attention.log" 2>/dev/null | awk '
  /^cudnn-attn fwd_/ { n++; e = $0; sub(/.*o max rel err /, "", e); sub(/,.*/, "", e)
    if (worst != "nan" && (e == "nan" || e + 0 >= worst + 0)) { worst = e; at = $2 " " $3 } }
  /^cudnn-attn bwd_/ { nb++; r = $0
    while (match(r, /d[qkv] max rel err [^ ]+ \(normwise [^)]+\)/)) {
      m = substr(r, RSTART, RLENGTH); r = substr(r, RSTART + RLENGTH); g = substr(m, 1, 2)
      sub(/.*normwise /, "", m); sub(/\)/, "", m)
      if (bworst != "nan" && (m == "nan" || m + 0 >= bworst + 0)) { bworst = m; bat = $2 " " $3 " " g } } }
  /^clocks / && index($0, "during SM ") { c = $0; sub(/.*during SM /, "", c); sub(/-.*/, "", c)
    if (lo == "" || c + 0 < lo + 0) lo = c }
  END { if (n || nb) printf "cudnn-attn: %d forward and %d backward rows in turns with cuDNN in process; ours against " \
    "it: worst o max rel err %s (%s), worst normwise gradient error %s (%s); lowest SM clock while timed: %s MHz\n", \
    n, nb, n ? worst : "-", at, nb ? bworst : "-", bat, lo == "" ? "n/a" : lo }'
[ "$full" = 1 ] && anchor_summary
[ "$status" -eq 0 ] && echo "gpu-check: PASS" || echo "gpu-check: FAIL"
echo "sass: $sass_line"
exit "$status"
