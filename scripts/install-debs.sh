#!/usr/bin/env bash
# Installs the Debian packages named that are not installed yet (idempotent: nothing to do, no
# apt call). Used by setup.sh and sanitize.sh.
#   scripts/install-debs.sh <who> <package>...     (<who> prefixes the one line it prints)
set -euo pipefail
who=$1
shift
need_pkgs=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need_pkgs+=("$p")
done
[ ${#need_pkgs[@]} -gt 0 ] || exit 0
echo "$who: installing ${need_pkgs[*]}"
sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
$sudo_cmd apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
