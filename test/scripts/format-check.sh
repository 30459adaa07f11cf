#!/usr/bin/env bash
# The house style: every tracked C++ source is as .clang-format formats it (clang-format-22,
# which scripts/setup.sh installs: other versions format differently). Fails naming the files
# that differ and the command that fixes them.
#   test/scripts/format-check.sh <source root>
set -euo pipefail
root=${1:?usage: format-check.sh <source root>}
cd "$root"
fmt=$(command -v clang-format-22 || true)
if [ -z "$fmt" ]; then
  echo "format-check: clang-format-22 not found (scripts/setup.sh installs it)"; exit 1
fi
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "format-check: SKIP: $root is not a git checkout (the files to check are the tracked ones)"; exit 77
fi
# Untracked new files count too (git ls-files --others --exclude-standard); lit inputs are
# excluded by their own .clang-format (FileCheck refers to their line numbers).
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.cpp' '*.h' ':!test/fuzz/corpus/**' ':!test/lit/**')
bad=()
checked=0
for f in "${files[@]}"; do
  [ -f "$f" ] || continue # deleted in the work tree
  checked=$((checked + 1))
  "$fmt" --style=file "$f" | cmp -s - "$f" || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  printf 'format-check: not in the house style: %s\n' "${bad[@]}"
  echo "format-check: fix with: clang-format-22 -i ${bad[*]}"
  exit 1
fi
echo "format-check: $checked files in the house style"
