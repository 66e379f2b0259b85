#!/usr/bin/env bash
# Installs the Debian packages the build, tests and benchmarks need.
# Does nothing when every package is already present.
# EXACTSAMPLE_WITH_TORCH=1 adds Debian's python3-torch (about 550 MB and 170 packages with
# its dependencies) for the Python module's optional torch test, which skips
# without it.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config python3
  libhwy-dev libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev
  clang libclang-rt-14-dev python3-matplotlib
  pybind11-dev python3-dev python3-numpy python3-pytest
  python3-setuptools python3-wheel python3-build python3-venv python3-pip
)
if [ "${EXACTSAMPLE_WITH_TORCH:-0}" = 1 ]; then packages+=(python3-torch); fi
bash "$(dirname "$0")/install_packages.sh" "${packages[@]}"
