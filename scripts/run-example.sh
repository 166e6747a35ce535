#!/usr/bin/env bash
# The main job: compile an example end to end with the built-in expert agent
# and, on a machine with an NVIDIA GPU and driver, check and time it.
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

echo "== $name: egg-opt --egg-pipeline (expert agent, sm_90a)"
"$bin/egg-opt" "$example" --egg-pipeline="chip=sm_90a record=$out/$name.decisions.json" \
  -o "$out/$name.gpu.mlir"
echo "decisions ($out/$name.decisions.json):"
grep -E '"(name|structure|tuning)"' "$out/$name.decisions.json" | sed 's/^ */  /'
"$bin/egg-translate" --egg-to-manifest "$out/$name.gpu.mlir" -o "$out/$name.manifest.json"
"$bin/egg-translate" --egg-to-ptx --egg-ptx-dir="$out/$name.ptx" "$out/$name.gpu.mlir" \
  -o "$out/$name.ptx.list"
echo "PTX: $out/$name.ptx/ ($(wc -l < "$out/$name.ptx.list") kernel module(s)); manifest: $out/$name.manifest.json"
if command -v ptxas >/dev/null || [[ -x /usr/local/cuda/bin/ptxas ]]; then
  "$here/scripts/check-examples.sh" "$bin" "$out/check" "$example"
fi

if [[ -x $bin/egg-eval ]] && command -v nvidia-smi >/dev/null && nvidia-smi >/dev/null 2>&1; then
  echo "== egg-eval on the GPU"
  "$bin/egg-eval" "$out/$name.manifest.json" --source="$example" --json="$out/$name.eval.json"
else
  echo "== no GPU here: skipping egg-eval (run scripts/gpu-check.sh on a GPU host)"
fi
