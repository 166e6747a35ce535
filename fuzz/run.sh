#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (Debian's clang-14 and
# libclang-rt-14-dev) and fuzzes each for SECONDS (default 60), starting
# from the corpus kept in fuzz/corpus/<target>/.
#   fuzz/run.sh [SECONDS]     EGG_FUZZ_TARGET=all|manifest|decisions|answer|mlir
# Targets other than `manifest` link EGG's libraries from EGG_BUILD_DIR
# (default build/). Built by scripts/sanitize.sh, that build is itself
# instrumented (ASan, UBSan, coverage), so libFuzzer sees EGG's code too;
# against a plain build only the harness is instrumented.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
out=${EGG_FUZZ_DIR:-$here/build-fuzz}
build=${EGG_BUILD_DIR:-$here/build}
target=${EGG_FUZZ_TARGET:-all}
mkdir -p "$out"
llvm=/usr/lib/llvm-22
flags=(-std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined
  -fno-sanitize=vptr -fno-rtti -I"$here/include" -I"$build/include"
  -I"$llvm/include")
wanted() { [[ $target == all || $target == "$1" ]]; }

if wanted manifest; then
  clang++ "${flags[@]}" "$here/fuzz/ManifestFuzzer.cpp" \
    "$here/lib/Eval/Manifest.cpp" "$llvm/lib/libLLVMSupport.a" \
    "$llvm/lib/libLLVMDemangle.a" -lz -lzstd -lpthread \
    -o "$out/manifest-fuzzer"
fi
# name source: a harness linked against EGG's libraries and all of MLIR.
link_egg() {
  local libs
  libs=$(cd "$build/lib" && ls libEggRegistration.a libEggPipelines.a \
    libEggAgents.a libMLIREggTransforms.a libEggAnalysis.a libEggTarget.a \
    libEggDialects.a libMLIREgg.a 2>/dev/null | sed "s|^|$build/lib/|")
  # In one group, so that the linker does not depend on the layers' order.
  clang++ "${flags[@]}" "$here/fuzz/$2" -fuse-ld=lld -Wl,--start-group $libs \
    -Wl,--end-group \
    -Wl,--start-group "$llvm"/lib/libMLIR*.a -Wl,--end-group \
    -L"$llvm/lib" -lLLVM -lz -lzstd -lpthread -ldl -o "$out/$1-fuzzer"
}
wanted decisions && link_egg decisions DecisionsFuzzer.cpp
wanted answer && link_egg answer LlmAnswerFuzzer.cpp
wanted mlir && link_egg mlir MlirPipelineFuzzer.cpp

# name seconds: fuzzes from a copy of the corpus; a crash leaves its input
# as $out/<name>-crash-*, which becomes a regression test.
run() {
  local work
  work=$(mktemp -d)
  cp "$here"/fuzz/corpus/"$1"/* "$work/"
  echo "== $1"
  ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=0 "$out/$1-fuzzer" "$work" \
    -max_total_time="$2" -max_len=65536 -timeout=20 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$out/$1-" >"$out/$1.log" 2>&1
  # The whole log stays in $out; the report of a crash and the stats here.
  grep -A40 -m1 "ERROR: \|deadly signal\|runtime error" "$out/$1.log" || true
  tail -8 "$out/$1.log"
  rm -rf "$work"
}
for t in manifest decisions answer mlir; do
  wanted $t && run $t "$seconds"
done
exit 0
