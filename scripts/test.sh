#!/usr/bin/env bash
# Installs what is missing, builds everything, runs every test (lit + FileCheck, unit
# tests, ptxas on every library kernel, GPU tests — which skip with the reason where
# there is no GPU). Ends in ctest's summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
ctest --test-dir "$root/build" --output-on-failure -j"$(nproc)"
