#!/usr/bin/env bash
# The main job: installs what is missing, builds everything, then runs the kernel
# library end to end (on the GPU if there is one; otherwise compiles every kernel to
# PTX and checks it with ptxas, as the CPU executor is not there yet).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
exec "$root/build/tools/tile-demo/tile-demo" "$@"
