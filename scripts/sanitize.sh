#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer build of EGG's own code,
# then the whole lit suite and the unit tests under it (docs/reliability.md).
#   scripts/sanitize.sh [build-dir]
# The LLVM/MLIR libraries are Debian's (not instrumented): their inline
# allocators poison memory the uninstrumented code then touches, so manual
# poisoning is ignored (allow_user_poisoning=0); vptr checks need RTTI,
# which LLVM is built without.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build-asan}
flags="-fsanitize=address,undefined -fno-sanitize=vptr -fno-omit-frame-pointer"
"$here/scripts/setup.sh" "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" \
  -DEGG_BUILD_PLUGIN=OFF
export ASAN_OPTIONS=detect_leaks=1:allow_user_poisoning=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
/usr/lib/llvm-22/bin/lit -sv "$build/test"
"$build/unittests/egg-unittests"
