#!/usr/bin/env bash
# On the GPU host: compute-sanitizer (memcheck, racecheck, synccheck) over
# every example's kernels, run through egg-eval (one correctness trial, no
# timing). Needs the bundle in .bundle/. Prints one line per example and tool.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
tools=$(mktemp -d)
tar -C "$tools" -xJf .bundle/egg-tools-linux-x86_64.tar.xz
bin=$tools/egg-tools/bin
work=$(mktemp -d)
scripts/check-examples.sh "$bin" "$work" >/dev/null
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
clean=0 dirty=0
for ex in examples/*.mlir; do
  n=$(basename "$ex" .mlir)
  for tool in memcheck racecheck synccheck; do
    "$sanitizer" --tool "$tool" --error-exitcode 9 --print-limit 5 \
      "$bin/egg-eval" "$work/$n.manifest.json" --source="$ex" --trials=1 \
      --timing=false --baseline=false --ceilings=profile >"$work/$n.$tool.log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$work/$n.$tool.log" | tail -1)
    if [[ $rc -eq 0 ]]; then clean=$((clean + 1)); else dirty=$((dirty + 1)); fi
    printf "%-22s %-9s rc=%s %s\n" "$n" "$tool" "$rc" "$summary"
  done
done
echo "$clean clean, $dirty with findings"
