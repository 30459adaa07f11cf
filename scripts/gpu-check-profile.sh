#!/usr/bin/env bash
# Sourced by gpu-check.sh (PROFILE="regex@skip ..."), on the GPU machine; sets profile_line. Uses its
# HERE, LOGS and the library path it set up.
# One ncu run per entry: the launch after `skip` launches of kernels whose name matches `regex`, in
# PROFILE_BINARY (default bench_attention; PROFILE_ARGS its arguments, its environment as given, e.g.
# ATTN_ROWS=f16_d128_full ATTN_QUICK=1 ATTN_SWEEP=0 ATTN_CUDNN=0), with the full section set and warp-state
# sampling per SASS instruction; the clocks are left alone (--clock-control none, as on every run here).
# Writes profile-<n>.ncu-rep and, read back from it, profile-<n>-details.txt (every section's table and rule),
# profile-<n>-source.csv (each SASS instruction with its stall samples; -source-lines.csv with the DSL lines)
# and profile-<n>-raw.csv, in $LOGS/profile.tar.xz without the reports (a call returns few files, and the
# build machine has no ncu to read a report), and prints each kernel's headline figures.
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1)
profile_line=""
bin="$HERE/${PROFILE_BINARY:-bench_attention}"
n=0
for entry in $PROFILE; do
  n=$((n + 1))
  regex=${entry%@*} skip=${entry##*@}
  [ "$skip" = "$entry" ] && skip=0
  mkdir -p "$LOGS/profile"
  rep="$LOGS/profile/profile-$n"
  if [ -z "$NCU" ] || [ ! -x "$bin" ]; then
    profile_line+="$entry: no ncu or no $bin; "
    continue
  fi
  t0=$SECONDS
  timeout -k 5 "${PROFILE_TIMEOUT:-300}" "$NCU" --clock-control none --set full --import-source no \
    -k "regex:$regex" --launch-skip "$skip" --launch-count 1 -f -o "$rep" "$bin" ${PROFILE_ARGS:-} \
    >"$rep.log" 2>&1
  rc=$?
  if [ "$rc" -ne 0 ] || [ ! -f "$rep.ncu-rep" ]; then
    profile_line+="$entry: ncu exited $rc ($(grep -m1 '==ERROR==\|==WARNING==' "$rep.log"), $rep.log); "
    continue
  fi
  "$NCU" -i "$rep.ncu-rep" --page details --print-details all >"$rep-details.txt" 2>&1
  "$NCU" -i "$rep.ncu-rep" --page source --print-source sass --csv >"$rep-source.csv" 2>&1
  "$NCU" -i "$rep.ncu-rep" --page source --print-source cuda,sass --csv >"$rep-source-lines.csv" 2>&1
  "$NCU" -i "$rep.ncu-rep" --page raw --csv >"$rep-raw.csv" 2>&1
  kernel=$(grep -m1 -o '^  [A-Za-z_][A-Za-z0-9_]*' "$rep-details.txt" | tr -d ' ')
  head=$(grep -E '^ +(Duration|SM Throughput|Compute \(SM\) Throughput|Memory Throughput|Registers Per Thread|Achieved Occupancy|Issue Slots Busy|No Eligible) ' \
    "$rep-details.txt" | awk '{ $1 = $1 } !seen[$0]++' | tr '\n' ';')
  profile_line+="$entry ($kernel, $((SECONDS - t0)) s): $head "
done
[ -d "$LOGS/profile" ] && tar -C "$LOGS" --exclude='*.ncu-rep' -cJf "$LOGS/profile.tar.xz" profile && rm -rf "$LOGS/profile"
