#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (Debian's clang-14 and
# libclang-rt-14-dev) against LLVM 22's support library, and fuzzes each for
# SECONDS (default 60), starting from the corpus kept in fuzz/corpus/.
#   fuzz/run.sh [SECONDS]
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
work=$(mktemp -d)
cp "$here"/fuzz/corpus/manifest/* "$work/"
ASAN_OPTIONS=allow_user_poisoning=0 "$out/manifest-fuzzer" "$work" \
  -max_total_time="$seconds" -max_len=65536 -print_final_stats=1 \
  -artifact_prefix="$out/" 2>&1 | tail -12
