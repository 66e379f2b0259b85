#!/usr/bin/env bash
# Installs a prebuilt llama.cpp into DIR (default build/llama.cpp) for the
# llama.cpp integration (integrations/llama.cpp, -DEXACTSAMPLE_LLAMA=ON):
#   DIR/lib      libllama, libggml, libggml-base and the CPU backends, from
#                the npm package @node-llama-cpp/linux-x64 (MIT)
#   DIR/include  llama.h and ggml's headers of the same release, from the git
#                bundle inside the npm package node-llama-cpp
# Both pinned to 3.21.1 (llama.cpp release v0.4.0). Node and npm come from
# Debian when missing. Does nothing (and prints nothing) when DIR already
# holds this version.
set -euo pipefail
version=3.21.1
dir=${1:-build/llama.cpp}
stamp="$dir/installed-$version"
[ -f "$stamp" ] && exit 0

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "install_llama.sh: the prebuilt llama.cpp exists for Linux x86-64 only, not $(uname -s)-$(uname -m)" >&2
     exit 1 ;;
esac
if ! command -v npm > /dev/null; then
  bash "$(dirname "$0")/install_packages.sh" nodejs npm
fi
bash "$(dirname "$0")/install_packages.sh" git

echo "installing llama.cpp (node-llama-cpp $version) into $dir"
rm -rf "$dir"
mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The prebuilt libraries alone: the package node-llama-cpp would also pull
# its GPU variants (about 500 MB).
(cd "$work" && npm install --silent --no-audit --no-fund --no-save --prefix "$work/bins" \
   -E "@node-llama-cpp/linux-x64@$version" > /dev/null)
cp -a "$work/bins/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64" "$dir/lib"
cp "$work/bins/node_modules/@node-llama-cpp/linux-x64/LICENSE" "$dir/LICENSE"
# The headers of the release those libraries were built from.
(cd "$work" && npm pack --silent "node-llama-cpp@$version" > /dev/null)
tar -xzf "$work/node-llama-cpp-$version.tgz" -C "$work" package/llama/gitRelease.bundle \
  package/llama/llama.cpp.info.json
git clone --quiet "$work/package/llama/gitRelease.bundle" "$work/llama.cpp" 2> /dev/null
mkdir -p "$dir/include"
cp "$work/llama.cpp/include/"*.h "$work/llama.cpp/ggml/include/"*.h "$dir/include/"
cp "$work/package/llama/llama.cpp.info.json" "$dir/"
test -f "$dir/include/llama.h"
test -f "$dir/lib/libllama.v0.4.0.so"
touch "$stamp"
