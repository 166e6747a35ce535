#!/usr/bin/env bash
# Builds egg-opt, egg-translate and egg-tune linked statically against the LLVM/MLIR
# archives and packs them into one archive for GPU hosts without LLVM:
#   scripts/build-bundle.sh   ->  .bundle/egg-tools-linux-x86_64.tar.xz
# The bundle needs glibc >= 2.36 on the host and nothing else.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${EGG_STATIC_BUILD_DIR:-$here/build-static}
"$here/scripts/setup.sh" "$build" -DEGG_STATIC_TOOLS=ON >/dev/null
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/egg-tools/bin" "$here/.bundle"
for tool in egg-opt egg-translate egg-eval egg-tune; do
  strip -o "$stage/egg-tools/bin/$tool" "$build/bin/$tool"
done
# The commit built (+ "-dirty" with uncommitted changes): bench/kernelbench.sh
# stamps its rows with it.
git -C "$here" describe --always --dirty --abbrev=40 > "$stage/egg-tools/REVISION" 2>/dev/null || true
bundle=$here/.bundle/egg-tools-linux-x86_64.tar.xz
tar -C "$stage" -cf - egg-tools | xz -9 -T2 > "$bundle"

echo "== shared libraries the tools need (no LLVM/MLIR allowed)"
for tool in egg-opt egg-translate egg-eval egg-tune; do
  echo "$tool:"; ldd "$stage/egg-tools/bin/$tool" | sed 's/^/  /'
  if ldd "$stage/egg-tools/bin/$tool" | grep -Eq 'libLLVM|libMLIR'; then
    echo "error: $tool still links a shared LLVM/MLIR library" >&2; exit 1
  fi
done
echo "== sizes"
du -b "$stage"/egg-tools/bin/* | awk '{printf "  %-40s %6.1f MB stripped\n", $2, $1/1e6}'
du -b "$bundle" | awk '{printf "  %-40s %6.1f MB compressed\n", $2, $1/1e6}'
