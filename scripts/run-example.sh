#!/usr/bin/env bash
# The main job: compile an example end to end with the built-in expert agent.
#   scripts/run-example.sh [example.mlir]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${EGG_BUILD_DIR:-$here/build}
example=${1:-$here/examples/gemm_bias_relu.mlir}
"$here/scripts/setup.sh" "$build" >/dev/null
bin=$build/bin
out=${EGG_OUT:-$here/out}
mkdir -p "$out"
name=$(basename "$example" .mlir)

echo "== $name: egg-opt (target profile, kernel formation)"
"$bin/egg-opt" "$example" \
  --egg-attach-target=chip=sm_90a --egg-form-kernels -o "$out/$name.egg.mlir"
grep -c "egg.kernel @" "$out/$name.egg.mlir" | xargs echo "kernels formed:"
echo "== decisions"
"$bin/egg-translate" --egg-to-decisions "$out/$name.egg.mlir" -o "$out/$name.decisions.json"
cat "$out/$name.decisions.json"
echo "== outputs in $out"
