#!/usr/bin/env bash
# Run HERE (the build machine): builds the runtime-only GPU executables and stages them with the GPU-side
# scripts in .device/, which the device tool carries to the GPU machine; there, `bash .device/gpu-check.sh`.
# The GPU machine has no LLVM/MLIR and its own libcuda, and a call carries at most 64 MiB: so this fails if
# a binary links LLVM, MLIR or CUDA libraries (libcuda must be dlopen'ed), or if .device/ grows too large.
#     scripts/gpu-bundle.sh            (BUILD=<dir> to use another build directory)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
DEV=$ROOT/.device
TARGETS=(runtime_gpu_tests kernels_gpu_tests attention_gpu_tests test_kernels_gpu_tests diff_gpu_tests models_gpu_tests cudnn_gpu_tests
         bench_kernels bench_conv bench_anchors bench_attention bench_train_step tile-mnist-aot planted_oob_store)
MAX_BYTES=$((58 << 20))  # headroom under the 64 MiB per call for the working tree itself (~1.5 MiB)
# .device/ is in .gitignore too; the local exclude also covers checkouts whose .gitignore predates it.
EXCLUDE=$(git -C "$ROOT" rev-parse --git-path info/exclude)
case $EXCLUDE in /*) ;; *) EXCLUDE=$ROOT/$EXCLUDE ;; esac
mkdir -p "$(dirname "$EXCLUDE")"
grep -qxF '/.device/' "$EXCLUDE" 2>/dev/null || echo '/.device/' >>"$EXCLUDE"

ninja -C "$BUILD" "${TARGETS[@]}"
mkdir -p "$DEV"

staged=()
bins=()
for t in "${TARGETS[@]}"; do
  bin=$(find "$BUILD" -path '*/CMakeFiles' -prune -o -type f -name "$t" -perm -u+x -print -quit)
  [ -n "$bin" ] || { echo "gpu-bundle: built $t but cannot find it under $BUILD" >&2; exit 1; }
  deps=$(ldd "$bin")
  if bad=$(grep -Ei 'libLLVM|libMLIR|libcuda|libcudart|libnvrtc|libnvJitLink|not found' <<<"$deps"); then
    echo "gpu-bundle: $t must depend on neither LLVM/MLIR nor CUDA libraries, and resolve all libraries:" >&2
    echo "$bad" >&2
    exit 1
  fi
  bins+=("$bin")
done
# The AOT example (examples/aot), built as a user's project against a fresh install of this build tree
# by its ctest (which skips running it here, without a GPU): there it must run and pass.
ctest --test-dir "$BUILD" -R '^(examples_install|example_aot)$' --output-on-failure >/dev/null ||
  { echo "gpu-bundle: building examples/aot failed (ctest --test-dir $BUILD -L examples)" >&2; exit 1; }
bins+=("$BUILD/examples/aot/softmax_aot")
# The executables travel as one xz stream (gpu-check.sh unpacks it): each embeds the same AOT PTX table
# (~60 MB), so a dictionary larger than one executable stores the table about once rather than once per
# executable (~4x smaller than compressing each alone; compressing takes ~3 GB of memory).
rm -f "$DEV"/*_gpu_tests.xz "$DEV"/bench_*.xz "$DEV"/tile-mnist-aot.xz "$DEV"/planted_oob_store.xz "$DEV"/softmax_aot.xz
tar -cf - --transform 's|.*/||' "${bins[@]}" | xz -T1 --lzma2=preset=6,dict=256MiB -c >"$DEV/executables.tar.xz"
staged+=("$DEV/executables.tar.xz")
# A few AOT PTX files for the SASS check there (variant 0 of a kernel: all arguments 16-divisible;
# 1: pointers only; softmax_30 / layernorm_fwd_36: BLOCK 1024 / 4096; matmul_f16_0: the tensor-core
# matmul, whose SASS must show HMMA; matmul_tma_f16_0: the descriptor matmul, whose SASS must show
# HGMMA and TMA loads (UTMALDG); matmul_tma_tf32_bt_0: TF32 on wgmma (HGMMA ... TF32);
# matmul_tma_persistent_f16_out_f16_0: the persistent grid, its C blocks by TMA stores (UTMASTG);
# attention_fwd_f16_12: the d128 forward, warp-specialised (HGMMA with a register A, no local
# memory); attention_bwd_dkdv_f16_12: the d128 dK/dV; see gen_kernels_aot.cpp and the kernels'
# variants(): three specialisations per declared variant).
mkdir -p "$DEV/ptx"
for p in vector_add_0 vector_add_1 softmax_30 layernorm_fwd_36 matmul_f16_0 matmul_tma_f16_0 matmul_tma_tf32_bt_0 \
  matmul_tma_persistent_f16_out_f16_0 attention_fwd_f16_12 attention_bwd_dkdv_f16_12; do
  install -m 644 "$BUILD/kernels/aot/kernels_aot_ptx/$p.ptx" "$DEV/ptx/$p.ptx"
  staged+=("$DEV/ptx/$p.ptx")
done
# GPU == CPU executor cases: every library and test kernel plus random programs, run on the CPU
# executor here (the GPU machine has no LLVM to run it); diff_gpu_tests replays them there.
# The CPU code is generated for the x86-64 baseline (TILE_CPU_TARGET, default here x86-64),
# so the GPU is compared with the executor path that every host runs.
ninja -C "$BUILD" make-diff-bundle
# Carried xz-compressed (gpu-check.sh unpacks it for diff_gpu_tests).
TILE_CPU_TARGET=${TILE_CPU_TARGET:-x86-64} "$BUILD/tools/diff-bundle/make-diff-bundle" "$DEV/diff.bundle" "${RANDOM_PROGRAMS:-1000}" ${DIFF_SEED:-}
rm -f "$DEV/diff.bundle.gz"
xz -6 -T2 -f "$DEV/diff.bundle"
staged+=("$DEV/diff.bundle.xz")
# The MNIST files, gzipped (the model trains there for one epoch; gpu-check unpacks them).
mkdir -p "$DEV/mnist"
for f in train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte; do
  [ -f "$ROOT/.data/mnist/$f" ] || { echo "gpu-bundle: $ROOT/.data/mnist/$f missing (scripts/fetch-mnist.sh)" >&2; exit 1; }
  [ "$DEV/mnist/$f.gz" -nt "$ROOT/.data/mnist/$f" ] || gzip -9 -c "$ROOT/.data/mnist/$f" >"$DEV/mnist/$f.gz"
  staged+=("$DEV/mnist/$f.gz")
done
install -m 755 "$ROOT/scripts/gpu-check.sh" "$DEV/gpu-check.sh"
install -m 644 "$ROOT/scripts/gpu-check-profile.sh" "$DEV/gpu-check-profile.sh"
install -m 644 "$ROOT/bench/torch_triton_bench.py" "$DEV/torch_triton_bench.py"
# It imports the network from bench/mnist_torch_reference.py, which the working tree carries.
install -m 644 "$ROOT/bench/torch_train_step_bench.py" "$DEV/torch_train_step_bench.py"
install -m 644 "$ROOT/bench/torch_conv_bench.py" "$DEV/torch_conv_bench.py"
install -m 644 "$ROOT/bench/attention_torch_bench.py" "$DEV/attention_torch_bench.py"
install -m 644 "$ROOT/bench/attention_triton_bwd.py" "$DEV/attention_triton_bwd.py"  # imported by the one above
staged+=("$DEV/gpu-check.sh" "$DEV/gpu-check-profile.sh" "$DEV/torch_triton_bench.py" "$DEV/torch_train_step_bench.py" "$DEV/torch_conv_bench.py"
         "$DEV/attention_torch_bench.py" "$DEV/attention_triton_bwd.py")

ours=$(du -cb "${staged[@]}" | tail -1 | cut -f1)
all=$(du -sb "$DEV" | cut -f1)
for f in "${staged[@]}"; do printf '  %-28s %8d KiB\n' "$(basename "$f")" $(($(stat -c %s "$f") >> 10)); done
awk -v n="${#staged[@]}" -v a="$ours" -v b="$all" \
  'BEGIN { printf "gpu-bundle: staged %d files, %.1f MiB (.device/ holds %.1f MiB)\n", n, a / 1048576, b / 1048576 }'
if [ "$all" -gt "$MAX_BYTES" ]; then
  echo "gpu-bundle: .device/ exceeds $((MAX_BYTES >> 20)) MiB; the device tool carries at most 64 MiB per call" >&2
  exit 1
fi
echo "gpu-bundle: on the GPU machine run: bash .device/gpu-check.sh"
