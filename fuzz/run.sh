#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (Debian's clang-14 and
# libclang-rt-14-dev) against LLVM 22's support library, and fuzzes each for
# SECONDS (default 60), starting from the corpus kept in fuzz/corpus/.
#   fuzz/run.sh [SECONDS]        (EGG_FUZZ_TARGET=manifest|decisions|all)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
out=${EGG_FUZZ_DIR:-$here/build-fuzz}
mkdir -p "$out"
llvm=/usr/lib/llvm-22
clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined \
  -fno-sanitize=vptr -fno-rtti -I"$here/include" -I"$llvm/include" \
  "$here/fuzz/ManifestFuzzer.cpp" "$here/lib/Eval/Manifest.cpp" \
  "$llvm/lib/libLLVMSupport.a" "$llvm/lib/libLLVMDemangle.a" \
  -lz -lzstd -lpthread -o "$out/manifest-fuzzer"
target=${EGG_FUZZ_TARGET:-all}
if [[ $target == all || $target == decisions ]]; then
  # The decisions target needs EGG's libraries: the build's static archives.
  build=${EGG_BUILD_DIR:-$here/build}
  libs=$(cd "$build/lib" && ls libEggRegistration.a libEggPipelines.a \
    libMLIREggTransforms.a libEggAgents.a libEggTarget.a libEggDialects.a \
    libMLIREgg.a 2>/dev/null | sed "s|^|$build/lib/|")
  clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined \
    -fno-sanitize=vptr -fno-rtti -I"$here/include" -I"$build/include" \
    -I"$llvm/include" "$here/fuzz/DecisionsFuzzer.cpp" $libs \
    -fuse-ld=lld -Wl,--start-group "$llvm"/lib/libMLIR*.a -Wl,--end-group \
    -L"$llvm/lib" -lLLVM -lz -lzstd -lpthread -ldl -o "$out/decisions-fuzzer"
fi
run() { # name seconds
  local work
  work=$(mktemp -d)
  cp "$here"/fuzz/corpus/"$1"/* "$work/"
  echo "== $1"
  ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=0 "$out/$1-fuzzer" "$work" \
    -max_total_time="$2" -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$out/$1-" 2>&1 | tail -6
}
[[ $target == all || $target == manifest ]] && run manifest "$seconds"
[[ $target == all || $target == decisions ]] && run decisions "$seconds"
exit 0
