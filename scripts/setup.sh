#!/usr/bin/env bash
# Installs EGG's build dependencies (Debian 12) and configures + builds EGG.
#   scripts/setup.sh [build-dir] [extra cmake args...]
# Installing packages needs root; run as root or with sudo available.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
shift || true

packages=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22 lld
          cmake ninja-build ccache g++ python3 libgtest-dev
          nlohmann-json3-dev libcurl4-openssl-dev libsqlite3-dev
          zlib1g-dev libzstd-dev xz-utils clang libclang-rt-14-dev)
# Extra packages a caller needs (scripts/test.sh: the browser for the report test).
read -r -a extra <<< "${EGG_EXTRA_PACKAGES:-}"
packages+=("${extra[@]}")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    sudo=()
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo=(sudo)
  else
    echo "error: EGG needs these Debian packages: ${missing[*]}" >&2
    echo "       installing them needs root: run this script as root or with sudo," >&2
    echo "       or install them yourself: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  echo "== installing ${missing[*]}"
  "${sudo[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q "${missing[@]}"
fi

launcher=()
# Paths under the checkout hashed relative to it, so the shared and static
# builds (build/, build-static/) share ccache's objects.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$here}
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_USE_LINKER=lld "${launcher[@]}" "$@"
fi
start=$(date +%s)
cmake --build "$build" -j "${EGG_JOBS:-2}"
echo "== built in $(( $(date +%s) - start )) s: $build/bin"
