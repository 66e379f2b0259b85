#!/usr/bin/env bash
# Installs the named Debian packages that are missing (apt-get, with sudo
# when not root); does nothing when every one is present. Shared by
# install_deps.sh and install_cross_deps.sh.
set -euo pipefail
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
# A mirror in the middle of a sync can fail one index; the install below
# then fails only if a package is really missing.
"${sudo_cmd[@]}" apt-get update -qq || echo "apt-get update reported errors; installing anyway"
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
