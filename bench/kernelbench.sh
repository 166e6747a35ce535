#!/usr/bin/env bash
# KernelBench through EGG on a GPU host, with the static tool bundle
# (.bundle/, scripts/build-bundle.sh): no LLVM needed there.
#   bench/kernelbench.sh [python -m egg.bench options] PATHS...
# The run folder is bench/kernelbench/run (results.jsonl: a run cut short
# goes on where it stopped when started again); torch.compile's times are
# kept in bench/kernelbench/torch-compile-cache.json; the table goes to
# docs/kernelbench.md. Set EGG_BENCH_RUN for another run folder.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
tar -C "$tools" -xJf "$here/.bundle/egg-tools-linux-x86_64.tar.xz"
export EGG_TOOLS=$tools/egg-tools/bin
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PATH=$CUDA_HOME/bin:$PATH
export PYTHONPATH=$here/python${PYTHONPATH:+:$PYTHONPATH}
# The commit the rows are stamped with: EGG_COMMIT, else the one the bundle
# was built at (a GPU host's copy of the tree may carry a stale .git).
revision=$(cat "$tools/egg-tools/REVISION" 2>/dev/null || true)
[[ $revision == *-dirty ]] && revision=${revision:0:7}-dirty || revision=${revision:0:7}
export EGG_COMMIT=${EGG_COMMIT:-${revision:-$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)}}
exec python3 -m egg.bench --out "${EGG_BENCH_RUN:-$here/bench/kernelbench/run}" \
  --compile-cache "$here/bench/kernelbench/torch-compile-cache.json" \
  --markdown "$here/docs/kernelbench.md" "$@"
