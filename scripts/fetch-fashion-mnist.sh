#!/usr/bin/env bash
# Places Fashion-MNIST (Debian's package dataset-fashion-mnist, installed when missing) into
# .data/fashion-mnist under the same idx file names as MNIST's, unpacked, and checks their MD5
# sums. Idempotent: verified files are kept.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/.data/fashion-mnist"
pkg=dataset-fashion-mnist
src=/usr/share/datasets/fashion-mnist  # where the package puts train-*/t10k-*-ubyte.gz
# MD5 of the unpacked files, computed from dataset-fashion-mnist 0.0~git20200523.55506a9-1
# (Debian bookworm). Upstream's README (zalandoresearch/fashion-mnist) lists MD5s of its own .gz
# files, which do not apply to Debian's: the package recompressed them. The unpacked contents are
# upstream's: for the labels, upstream's .gz files (matching the README's 25c81989df183df01b3e8a0aad5dffbe
# and bb300cfdad3c16e7a12a480ee83cd310) unpack to the sums below; for the images, the sums below
# are those that loaders built on torchvision list for the unpacked upstream files.
declare -A md5=(
  [train-images-idx3-ubyte]=f4a8712d7a061bf5bd6d2ca38dc4d50a
  [train-labels-idx1-ubyte]=9018921c3c673c538a1fc5bad174d6f9
  [t10k-images-idx3-ubyte]=8181f5470baa50b63fa0f6fddb340f0a
  [t10k-labels-idx1-ubyte]=15d484375f8d13e6eb1aabb0c3f46965
)
verified() {
  for f in "${!md5[@]}"; do
    [ -f "$dest/$f" ] && [ "$(md5sum "$dest/$f" | cut -d' ' -f1)" = "${md5[$f]}" ] || return 1
  done
}
verified && exit 0

if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
  echo "fetch-fashion-mnist: installing $pkg"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "$pkg" >/dev/null
fi

mkdir -p "$dest"
for f in "${!md5[@]}"; do
  if [ -f "$src/$f.gz" ]; then
    gunzip -c "$src/$f.gz" > "$dest/$f.part"
  elif [ -f "$src/$f" ]; then
    cp "$src/$f" "$dest/$f.part"
  else
    echo "fetch-fashion-mnist: $src/$f(.gz) missing although $pkg is installed" >&2
    exit 1
  fi
  mv "$dest/$f.part" "$dest/$f"
done
verified || { echo "fetch-fashion-mnist: MD5 mismatch in $dest (the files of $pkg differ from the recorded ones)" >&2; exit 1; }
echo "fetch-fashion-mnist: Fashion-MNIST ready in $dest"
