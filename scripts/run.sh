#!/usr/bin/env bash
# The main job: installs what is missing, builds the trainer (build/models/tile-mnist and only
# what it needs), then trains the MNIST CNN (docs/models.md) for one epoch and prints the
# test accuracy: on the GPU when there is one, else on the CPU executor (over all cores).
# Arguments go to tile-mnist (scripts/run.sh --help lists them), e.g.
#   scripts/run.sh --epochs 2 --executor cpu --checkpoint mnist.ckpt
# The former main job, the kernel library checked end to end: scripts/run.sh --demo [args].
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = "--demo" ]; then
  shift
  "$root/scripts/setup.sh" tile-demo
  exec "$root/build/tools/tile-demo/tile-demo" "$@"
fi
"$root/scripts/setup.sh" tile-mnist
exec "$root/build/models/tile-mnist" "$@"
