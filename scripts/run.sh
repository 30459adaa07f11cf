#!/usr/bin/env bash
# The main job: installs what is missing, builds everything, then trains the MNIST CNN of
# shared/mnist_cnn.md (build/models/tile-mnist) for one epoch and prints the test accuracy:
# on the GPU when there is one, else on the CPU executor (over all cores: TILE_CPU_THREADS
# defaults to nproc here). Arguments go to tile-mnist (scripts/run.sh --help lists them), e.g.
#   scripts/run.sh --epochs 2 --executor cpu --checkpoint mnist.ckpt
# The former main job, the kernel library checked end to end: scripts/run.sh --demo [args].
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
if [ "${1:-}" = "--demo" ]; then
  shift
  exec "$root/build/tools/tile-demo/tile-demo" "$@"
fi
export TILE_CPU_THREADS=${TILE_CPU_THREADS:-$(nproc)}
exec "$root/build/models/tile-mnist" "$@"
