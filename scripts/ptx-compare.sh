#!/usr/bin/env bash
# Compares two copies of the generated PTX (e.g. build/ saved before a refactor and after it), file by
# file under the same relative paths: how many are byte-identical, how many differ only in debug line
# info (.loc/.file lines follow the DSL sources' line numbers, which moving or formatting code
# changes) and which differ in code. Exits 1 if any file differs in code or is missing.
# lit's temporary outputs (test/lit/, named by a hash of the compiler build) are not compared.
#   mkdir /tmp/before && (cd build && find . -name '*.ptx' -exec cp --parents {} /tmp/before \;)  # before
#   scripts/ptx-compare.sh /tmp/before build                                                       # after
set -euo pipefail
before=${1:?usage: ptx-compare.sh <before dir> <after dir>}
after=${2:?usage: ptx-compare.sh <before dir> <after dir>}
strip() { grep -vE '^\s*\.(loc|file)\s' "$1" || true; }
same=0 lineinfo=0 code=() missing=()
while IFS= read -r rel; do
  if [ ! -f "$after/$rel" ]; then missing+=("$rel"); continue; fi
  if cmp -s "$before/$rel" "$after/$rel"; then same=$((same + 1))
  elif cmp -s <(strip "$before/$rel") <(strip "$after/$rel"); then lineinfo=$((lineinfo + 1))
  else code+=("$rel"); fi
done < <(cd "$before" && find . -name '*.ptx' -not -path './test/lit/*' | sort)
echo "ptx-compare: $same byte-identical, $lineinfo differ only in .loc/.file line info, ${#code[@]} differ in code, ${#missing[@]} missing"
[ ${#code[@]} -eq 0 ] || printf '  differs in code: %s\n' "${code[@]}"
[ ${#missing[@]} -eq 0 ] || printf '  missing after: %s\n' "${missing[@]}"
[ ${#code[@]} -eq 0 ] && [ ${#missing[@]} -eq 0 ]
