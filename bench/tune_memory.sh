#!/usr/bin/env bash
# egg-tune's host memory on a 50-kernel input (issue: under 2 GB).
#   bench/tune_memory.sh [build-dir]
# Generates a chain of 50 GEMMs (no two fuse, so 50 kernels), tunes it with
# the cost model (8 candidates per kernel, 400 compiles), and reports the
# peak resident set from /usr/bin/time.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build}/bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work/chain50.mlir" <<'PY'
import sys
n, lines = 50, []
args = ", ".join(f"%w{i}: tensor<256x256xf32>" for i in range(n))
lines.append(f"func.func @chain50(%x: tensor<256x256xf32>, {args}) -> tensor<256x256xf32> {{")
lines.append("  %zero = arith.constant 0.0 : f32")
lines.append("  %e = tensor.empty() : tensor<256x256xf32>")
lines.append("  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>")
cur = "%x"
for i in range(n):
    lines.append(f"  %m{i} = linalg.matmul ins({cur}, %w{i} : tensor<256x256xf32>, tensor<256x256xf32>) "
                 f"outs(%acc : tensor<256x256xf32>) -> tensor<256x256xf32>")
    cur = f"%m{i}"
lines.append(f"  return {cur} : tensor<256x256xf32>")
lines.append("}")
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (Debian package time)"; exit 1; }
/usr/bin/time -v "$bin/egg-tune" "$work/chain50.mlir" -o "$work/out" --evaluator=model \
  --max-candidates=8 --quiet 2> "$work/time.txt" | tail -2
kernels=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['kernels']))" "$work/out/report.json")
rss=$(awk -F: '/Maximum resident set size/ {print $2}' "$work/time.txt")
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time.txt")
echo "egg-tune on $kernels kernels: peak RSS $((rss / 1024)) MB, wall $wall"
