#!/usr/bin/env bash
# One benchmark suite, bench/<suite>/ (KernelBench format: each problem a
# PyTorch module whose linalg MLIR the egg front end produces and keeps in
# the output folder): bench/memory.sh and bench/gemm.sh call this. Runs EGG
# (expert agent, and egg-tune when EGG_TUNE=N candidates is set), PyTorch
# eager and torch.compile side by side on this GPU through
# `python -m egg.bench`, and writes the table: time, GB/s, fraction of the
# floor (bytes moved at the measured copy bandwidth, or FLOPs at the peak
# rate), ratios; for products also egg against cuBLAS
# timed by egg-eval in its own process on the same inputs (the contraction
# alone), a second table.
#   bench/run-suite.sh SUITE [problem.py...]   (default: all of bench/SUITE/)
# EGG_L2_FLUSH=read: every timer here (egg-eval, egg-tune's candidates,
# PyTorch) flushes L2 by reading a buffer instead of writing one
# (docs/egg-eval.md, "Timing").
# Tools: build/bin, or the static bundle in .bundle/ (the GPU host).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
suite=$1
shift
out=${OUT:-$here/out}/$suite
mkdir -p "$out"
if [[ -z ${EGG_TOOLS:-} ]]; then
  if [[ -x $here/build/bin/egg-opt ]]; then
    export EGG_TOOLS=$here/build/bin
  else
    tools=$(mktemp -d)
    tar -C "$tools" -xJf "$here/.bundle/egg-tools-linux-x86_64.tar.xz"
    export EGG_TOOLS=$tools/egg-tools/bin
  fi
fi
problems=("$@")
[[ ${#problems[@]} -gt 0 ]] || problems=("$here"/bench/$suite/*.py)
tune=()
[[ -n ${EGG_TUNE:-} ]] && tune=(--tune "$EGG_TUNE")
# EGG_TRIALS: input sets checked per problem (`--input-sets`: the
# problem's own, then fresh random ones).
[[ -n ${EGG_TRIALS:-} ]] && tune+=(--input-sets "$EGG_TRIALS")
echo "# bench/$suite.sh on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u +%F)"
PYTHONPATH=$here/python${PYTHONPATH:+:$PYTHONPATH} python3 -m egg.bench \
  "${problems[@]}" --out "$out" "${tune[@]}" 2>&1 | grep --line-buffered -v Warning | tee "$out/table.md"
