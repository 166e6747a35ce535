#!/usr/bin/env bash
# Performance I (issue 7): the memory-bound suite in bench/memory/ (17
# memory-bound operators and 9 fusion chains, KernelBench format: each a
# PyTorch module whose linalg MLIR the egg front end produces and keeps in
# the output folder). Runs EGG (expert agent, and egg-tune when EGG_TUNE=N
# candidates is set), PyTorch eager and torch.compile side by side on this
# GPU through `python -m egg.bench`, and writes the table: time, GB/s,
# fraction of the bytes-moved floor (measured copy bandwidth), ratios.
#   bench/memory.sh [problem.py...]      (default: all of bench/memory/)
# Tools: build/bin, or the static bundle in .bundle/ (the GPU host).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$here/out}/memory
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
[[ ${#problems[@]} -gt 0 ]] || problems=("$here"/bench/memory/*.py)
tune=()
[[ -n ${EGG_TUNE:-} ]] && tune=(--tune "$EGG_TUNE")
echo "# bench/memory.sh on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u +%F)"
PYTHONPATH=$here/python${PYTHONPATH:+:$PYTHONPATH} python3 -m egg.bench \
  "${problems[@]}" --out "$out" "${tune[@]}" 2>&1 | grep -v Warning | tee "$out/table.md"
