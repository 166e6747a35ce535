#!/usr/bin/env bash
# Runs on the GPU host (no LLVM there), from the repository root, with the
# bundle carried in .bundle/. Unpacks the static tools, checks they need no
# LLVM/MLIR shared library, and runs the examples through them. Results go to
# $OUT (or ./out).
set -uo pipefail
out=${OUT:-$PWD/out}
mkdir -p "$out"
log=$out/gpu-check.log
exec > >(tee "$log") 2>&1
tools=$(mktemp -d)
tar -C "$tools" -xJf .bundle/egg-tools-linux-x86_64.tar.xz
bin=$tools/egg-tools/bin
echo "== host"; uname -a; ldd --version | head -1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
echo "== ldd egg-opt"; ldd "$bin/egg-opt"
if ldd "$bin/egg-opt" | grep -Eq 'libLLVM|libMLIR'; then echo "FAIL: LLVM shared libs"; fi
"$bin/egg-opt" --version | head -3
status=0
for ex in examples/*.mlir; do
  name=$(basename "$ex" .mlir)
  if "$bin/egg-opt" "$ex" --egg-attach-target --egg-form-kernels -o "$out/$name.egg.mlir" &&
     "$bin/egg-translate" --egg-to-decisions "$out/$name.egg.mlir" -o "$out/$name.decisions.json"; then
    echo "PASS $name: $(grep -c 'egg.kernel @' "$out/$name.egg.mlir") kernel(s)"
  else
    echo "FAIL $name"; status=1
  fi
done
exit $status
