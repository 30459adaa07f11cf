#!/usr/bin/env bash
# ctest tile_mnist_cli (label models): tile-mnist's bad inputs each end in one line on stderr
# naming the flag or file and a non-zero exit; a tiny run trains, prints the accuracy line and
# checkpoints; resuming works; nothing on disk is lost by a failing run.
#   cli_test.sh <tile-mnist binary>
set -uo pipefail
BIN=$1
T=$(mktemp -d "${TMPDIR:-/tmp}/tile-mnist-cli-XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
export TILE_CPU_THREADS=${TILE_CPU_THREADS:-2}

# idx files: images(file, count, [truncate]) and labels(file, count[, magic]).
be32() { printf "\\x$(printf %02x $(($1 >> 24 & 255)))\\x$(printf %02x $(($1 >> 16 & 255)))\\x$(printf %02x $(($1 >> 8 & 255)))\\x$(printf %02x $(($1 & 255)))"; }
images() { { printf '\x00\x00\x08\x03'; be32 "$2"; be32 28; be32 28; head -c $(($2 * 784)) /dev/urandom; } >"$1"; }
labels() { { printf '\x00\x00\x08\x01'; be32 "$2"; for ((i = 0; i < $2; ++i)); do printf "\\x0$((i % 10))"; done; } >"$1"; }
dataset() {  # dataset DIR NTRAIN NTEST
  mkdir -p "$1"
  images "$1/train-images-idx3-ubyte" "$2"; labels "$1/train-labels-idx1-ubyte" "$2"
  images "$1/t10k-images-idx3-ubyte" "$3"; labels "$1/t10k-labels-idx1-ubyte" "$3"
}

# expect_fail NAME RC REGEX args...: exit code RC, exactly one stderr line matching REGEX.
expect_fail() {
  local name=$1 want=$2 re=$3
  shift 3
  "$BIN" "$@" >"$T/out" 2>"$T/err"
  local rc=$? lines
  lines=$(wc -l <"$T/err")
  if [ "$rc" != "$want" ] || [ "$lines" != 1 ] || ! grep -Eq -- "$re" "$T/err"; then
    echo "FAIL $name: rc $rc (want $want), $lines stderr line(s) (want 1 matching /$re/):"
    sed 's/^/    /' "$T/err"
    fails=$((fails + 1))
  else
    echo "ok   $name: $(cat "$T/err")"
  fi
}

dataset "$T/tiny" 5 3
expect_fail "unknown flag" 2 'unknown flag --bogus' --bogus
expect_fail "batch size 0" 2 '--batch-size 0 is out of range' --batch-size 0
expect_fail "batch larger than the data" 2 '--batch-size 6 is larger than the 5 training images' \
  --data-dir "$T/tiny" --executor cpu --batch-size 6
expect_fail "missing data" 1 "$T/none/train-images-idx3-ubyte: missing" --data-dir "$T/none" --executor cpu

cp -r "$T/tiny" "$T/trunc"; head -c 2000 "$T/tiny/train-images-idx3-ubyte" >"$T/trunc/train-images-idx3-ubyte"
expect_fail "truncated images" 1 "trunc/train-images-idx3-ubyte: .*truncated" --data-dir "$T/trunc" --executor cpu
cp -r "$T/tiny" "$T/magic"; cp "$T/tiny/train-labels-idx1-ubyte" "$T/magic/train-images-idx3-ubyte"
expect_fail "wrong magic" 1 "magic/train-images-idx3-ubyte: .*magic" --data-dir "$T/magic" --executor cpu
cp -r "$T/tiny" "$T/count"; labels "$T/count/train-labels-idx1-ubyte" 4
expect_fail "image/label count mismatch" 1 "count/.*(4|5)" --data-dir "$T/count" --executor cpu
echo "not a checkpoint" >"$T/junk.ckpt"
expect_fail "foreign checkpoint" 1 "junk.ckpt: .*not a tile checkpoint" --data-dir "$T/tiny" --executor cpu --batch-size 2 --resume "$T/junk.ckpt"
if ! command -v nvidia-smi >/dev/null; then
  expect_fail "no GPU" 1 '--executor gpu: no usable GPU' --data-dir "$T/tiny" --executor gpu
fi

# A tiny run trains, prints the accuracy and checkpoints; resuming continues.
if "$BIN" --data-dir "$T/tiny" --executor cpu --batch-size 2 --epochs 1 --checkpoint "$T/a.ckpt" >"$T/out" 2>"$T/err" &&
   grep -Eq '^test accuracy: [0-9]+\.[0-9]{2}%$' "$T/out" && [ -s "$T/a.ckpt" ]; then
  echo "ok   tiny run: $(grep 'test accuracy' "$T/out")"
else
  echo "FAIL tiny run"; sed 's/^/    /' "$T/out" "$T/err"; fails=$((fails + 1))
fi
cp "$T/a.ckpt" "$T/a.copy"
if "$BIN" --data-dir "$T/tiny" --executor cpu --batch-size 2 --epochs 2 --resume "$T/a.ckpt" --checkpoint "$T/a.ckpt" \
     >"$T/out" 2>"$T/err" && grep -q 'resumed from' "$T/out" && [ "$(grep -c 'test accuracy' "$T/out")" = 1 ]; then
  echo "ok   resume: trained the second epoch only"
else
  echo "FAIL resume"; sed 's/^/    /' "$T/out" "$T/err"; fails=$((fails + 1))
fi
expect_fail "resume with another batch size" 1 'a.copy: .*another --batch-size' \
  --data-dir "$T/tiny" --executor cpu --batch-size 1 --resume "$T/a.copy" --checkpoint "$T/a.copy"
cmp -s "$T/a.copy" "$T/a.ckpt" && { echo "FAIL: the resumed run did not write its checkpoint"; fails=$((fails + 1)); }
expect_fail "failing run keeps the checkpoint" 1 'missing' --data-dir "$T/none" --executor cpu --checkpoint "$T/a.copy"
[ -s "$T/a.copy" ] || { echo "FAIL: a failing run destroyed the checkpoint"; fails=$((fails + 1)); }

echo "$fails failure(s)"
[ "$fails" = 0 ]
