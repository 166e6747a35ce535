#!/usr/bin/env bash
# On the GPU host: compute-sanitizer (memcheck, racecheck, synccheck) over
# the kernels of every example and every bench/ problem, each run through
# egg-eval (one correctness trial, no timing). Bench problems (KernelBench
# format) are imported with the Python front end first. Needs the bundle in
# .bundle/. Prints one line per problem and tool, then the totals.
#   scripts/gpu-sanitize.sh [examples|bench|all]   (default all)
#   scripts/gpu-sanitize.sh only NAME...            (the named examples)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
which=${1:-all}
export PATH=/usr/local/cuda/bin:$PATH
tools=$(mktemp -d)
tar -C "$tools" -xJf "$here/.bundle/egg-tools-linux-x86_64.tar.xz"
bin=$tools/egg-tools/bin
work=$(mktemp -d)
sources=()
if [[ $which == all || $which == examples ]]; then
  sources+=("$here"/examples/*.mlir)
fi
if [[ $which == only ]]; then
  shift
  for n in "$@"; do sources+=("$here/examples/$n.mlir"); done
fi
if [[ $which == all || $which == bench ]]; then
  # The front end writes each problem's linalg MLIR (what egg.bench feeds
  # egg-opt).
  PYTHONPATH=$here/python python3 - "$work" "$here"/bench/*/*.py <<'PY' 2>&1 | grep -v Warning
import sys
from pathlib import Path
from egg.kernelbench import import_problem
work = Path(sys.argv[1])
for path in sys.argv[2:]:
    try:
        imported = import_problem(path)[3]
        (work / ("bench_" + Path(path).stem + ".mlir")).write_text(imported.mlir)
    except Exception as e:  # Reported, and the problem left out.
        print(f"import failed: {path}: {e}")
PY
  for f in "$work"/*.mlir; do [[ -e $f ]] && sources+=("$f"); done
fi
"$here"/scripts/check-examples.sh "$bin" "$work/out" "${sources[@]}" | grep -v "^OK" || true
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
clean=0 dirty=0
for src in "${sources[@]}"; do
  n=$(basename "$src" .mlir)
  [[ -e $work/out/$n.manifest.json ]] || { echo "$n: not compiled"; dirty=$((dirty + 1)); continue; }
  for tool in memcheck racecheck synccheck; do
    "$sanitizer" --tool "$tool" --error-exitcode 9 --print-limit 5 \
      "$bin/egg-eval" "$work/out/$n.manifest.json" --source="$src" --trials=1 \
      --timing=false --baseline=false --ceilings=profile >"$work/$n.$tool.log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$work/$n.$tool.log" | tail -1)
    if [[ $rc -eq 0 ]]; then clean=$((clean + 1)); else
      dirty=$((dirty + 1))
      [[ -n ${OUT:-} ]] && cp "$work/$n.$tool.log" "$OUT/" 2>/dev/null
    fi
    printf "%-26s %-9s rc=%s %s\n" "$n" "$tool" "$rc" "$summary"
  done
done
echo "$clean clean, $dirty with findings (${#sources[@]} problems)"
