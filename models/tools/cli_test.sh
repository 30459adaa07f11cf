#!/usr/bin/env bash
# ctest tile_mnist_cli (label models): tile-mnist's bad inputs each end in one line on stderr
# naming the flag or file and a non-zero exit; a tiny run trains, prints the accuracy line and
# checkpoints; resuming works; nothing on disk is lost by a failing run; --checkpoint never
# replaces a file that is not a checkpoint and fails before training when it cannot be written;
# SIGTERM saves at the next step.
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

# --checkpoint over a file that is not a checkpoint is refused and the file kept; an unwritable
# one fails before training (no accuracy line).
echo "my notes" >"$T/notes.txt"
expect_fail "checkpoint over a text file" 1 "refusing to overwrite $T/notes.txt: it is not a tile checkpoint" \
  --data-dir "$T/tiny" --executor cpu --batch-size 2 --checkpoint "$T/notes.txt"
[ "$(cat "$T/notes.txt")" = "my notes" ] || { echo "FAIL: notes.txt was overwritten"; fails=$((fails + 1)); }
cp "$T/tiny/train-labels-idx1-ubyte" "$T/labels.copy"
expect_fail "checkpoint over the training labels" 1 "refusing to overwrite $T/tiny/train-labels-idx1-ubyte" \
  --data-dir "$T/tiny" --executor cpu --batch-size 2 --checkpoint "$T/tiny/train-labels-idx1-ubyte"
cmp -s "$T/labels.copy" "$T/tiny/train-labels-idx1-ubyte" || { echo "FAIL: the labels were overwritten"; fails=$((fails + 1)); }
expect_fail "checkpoint in a missing folder" 1 "cannot save checkpoint $T/none/x.ckpt: folder $T/none: No such file" \
  --data-dir "$T/tiny" --executor cpu --batch-size 2 --checkpoint "$T/none/x.ckpt"
grep -q 'test accuracy' "$T/out" && { echo "FAIL: trained before reporting the missing folder"; fails=$((fails + 1)); }
expect_fail "checkpoint is a folder" 1 "cannot save checkpoint $T/tiny: it is a folder" \
  --data-dir "$T/tiny" --executor cpu --batch-size 2 --checkpoint "$T/tiny"

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
expect_fail "resume on another dataset" 1 \
  'a.copy: the checkpoint was trained on --dataset mnist, this run asks for --dataset fashion' \
  --data-dir "$T/tiny" --dataset fashion --executor cpu --batch-size 2 --resume "$T/a.copy"
if "$BIN" --data-dir "$T/tiny" --executor cpu --batch-size 2 --epochs 2 --max-steps 2 --resume "$T/a.copy" \
     >"$T/out" 2>"$T/err" && grep -q 'the checkpoint has 3 step(s) already; --max-steps 2: nothing to train' "$T/out"; then
  echo "ok   --max-steps below the checkpoint's step: nothing to train"
else
  echo "FAIL --max-steps below the checkpoint's step"; sed 's/^/    /' "$T/out" "$T/err"; fails=$((fails + 1))
fi
expect_fail "resume with another batch size" 1 \
  'a.copy: the checkpoint was trained with --batch-size 2, this run asks for --batch-size 1' \
  --data-dir "$T/tiny" --executor cpu --batch-size 1 --resume "$T/a.copy" --checkpoint "$T/a.copy"
cmp -s "$T/a.copy" "$T/a.ckpt" && { echo "FAIL: the resumed run did not write its checkpoint"; fails=$((fails + 1)); }
expect_fail "failing run keeps the checkpoint" 1 'missing' --data-dir "$T/none" --executor cpu --checkpoint "$T/a.copy"
[ -s "$T/a.copy" ] || { echo "FAIL: a failing run destroyed the checkpoint"; fails=$((fails + 1)); }

# The first SIGTERM stops training at the next step, saves and exits 143 (SIGINT: 130, but a
# script's `cmd &` starts with SIGINT ignored); a dead writer's temp file goes at the next save.
dataset "$T/big" 5000 3
: >"$T/int.ckpt.tmp.999999999"  # beyond any pid_max: a writer that is gone
"$BIN" --data-dir "$T/big" --executor cpu --batch-size 1 --quiet --checkpoint "$T/int.ckpt" >"$T/out" 2>"$T/err" &
pid=$!
for ((i = 0; i < 1200; ++i)); do grep -q '^tile-mnist:' "$T/out" && break; sleep 0.05; done
kill -TERM "$pid"
wait "$pid"
rc=$?
step=$(sed -n 's/^interrupted by SIGTERM after step \([0-9]*\): checkpoint saved to .*int.ckpt .*/\1/p' "$T/out")
if [ "$rc" = 143 ] && [ -n "$step" ] && [ -s "$T/int.ckpt" ] && ! ls "$T"/int.ckpt.tmp.* >/dev/null 2>&1 &&
   "$BIN" --data-dir "$T/big" --executor cpu --batch-size 1 --quiet --resume "$T/int.ckpt" --max-steps $((step + 1)) \
     >"$T/out2" 2>"$T/err2" && grep -q "resumed from $T/int.ckpt: 0 epoch(s), $step step(s) done" "$T/out2"; then
  echo "ok   SIGTERM: saved at step $step, resumed"
else
  echo "FAIL SIGTERM: rc $rc (want 143), step '$step'"; sed 's/^/    /' "$T/out" "$T/err" "$T/out2" "$T/err2" 2>/dev/null
  ls "$T" | sed 's/^/    /'; fails=$((fails + 1))
fi

echo "$fails failure(s)"
[ "$fails" = 0 ]
