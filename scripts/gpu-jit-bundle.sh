#!/usr/bin/env bash
# Run HERE: packs tile-demo (the DSL's JIT path: trace -> compile -> PTX -> launch) with the shared
# libraries it needs (libLLVM, libMLIR and their dependencies, libdevice) into .jit/ as two xz tars
# that together fit the device tool's 64 MiB per call. There, in one call with carry [".jit"]:
#   mkdir -p /tmp/jit && for p in .jit/p1.tar.xz .jit/p2.tar.xz; do xz -dc $p | tar x -C /tmp/jit; done
#   cd /tmp/jit && LD_LIBRARY_PATH=/tmp/jit TILE_LIBDEVICE=/tmp/jit/libdevice.10.bc ./tile-demo
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OUTDIR=$ROOT/.jit
EXCLUDE=$(git -C "$ROOT" rev-parse --git-path info/exclude)
case $EXCLUDE in /*) ;; *) EXCLUDE=$ROOT/$EXCLUDE ;; esac
grep -qxF '/.jit/' "$EXCLUDE" 2>/dev/null || echo '/.jit/' >>"$EXCLUDE"

ninja -C "$BUILD" tile-demo
demo=$BUILD/tools/tile-demo/tile-demo
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/p1" "$work/p2" "$OUTDIR"
# Everything the loader needs beyond what any Linux with a C++ runtime has.
for lib in $(ldd "$demo" | awk '/=>/ {print $3}' | grep -v -E '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux)[.-]'); do
  case $(basename "$lib") in libLLVM*) cp -L "$lib" "$work/p1/" ;; *) cp -L "$lib" "$work/p2/" ;; esac
done
cp "$demo" "${CUDA_HOME:-/usr/local/cuda}/nvvm/libdevice/libdevice.10.bc" "$work/p2/"
tar cf - -C "$work/p1" . | xz -T2 -6 >"$OUTDIR/p1.tar.xz"
tar cf - -C "$work/p2" . | xz -T2 -6 >"$OUTDIR/p2.tar.xz"
du -cb "$OUTDIR"/p1.tar.xz "$OUTDIR"/p2.tar.xz | awk 'END { printf "gpu-jit-bundle: %.1f MiB in .jit/\n", $1 / 1048576 }'
