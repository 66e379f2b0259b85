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
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
for deb in "${debian_archs[@]}"; do
  dpkg --print-foreign-architectures | grep -qx "$deb" || "${sudo_cmd[@]}" dpkg --add-architecture "$deb"
done
bash "$(dirname "$0")/install_packages.sh" "${packages[@]}"
