#!/usr/bin/env bash
# Installs what a cross build and its emulated tests need, for each
# architecture named (aarch64, ppc64le, s390x; default: all three): Debian's
# cross compiler, qemu-user, and the multiarch -dev packages of Highway and
# GoogleTest. Does nothing when every package is already present.
set -euo pipefail
[ $# -eq 0 ] && set -- aarch64 ppc64le s390x
packages=(qemu-user)
debian_archs=()
for arch in "$@"; do
  case "$arch" in
    aarch64) triple=aarch64-linux-gnu; deb=arm64 ;;
    ppc64le) triple=powerpc64le-linux-gnu; deb=ppc64el ;;
    s390x) triple=s390x-linux-gnu; deb=s390x ;;
    *) echo "install_cross_deps.sh: unknown architecture '$arch' (aarch64, ppc64le, s390x)" >&2
       exit 2 ;;
  esac
  debian_archs+=("$deb")
  packages+=("g++-$triple" "libhwy-dev:$deb" "libgtest-dev:$deb" "libgmock-dev:$deb")
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
for deb in "${debian_archs[@]}"; do "${sudo_cmd[@]}" dpkg --add-architecture "$deb"; done
# A mirror in the middle of a sync can fail one architecture's index; the
# install below then fails only if a package is really missing.
"${sudo_cmd[@]}" apt-get update -qq || echo "apt-get update reported errors; installing anyway"
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
