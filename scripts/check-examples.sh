#!/usr/bin/env bash
# Compiles every example through the EGG pipeline (expert agent) to PTX and,
# where ptxas is available, assembles it for sm_90a and rejects spills.
#   scripts/check-examples.sh BIN_DIR OUT_DIR [examples...]
# Prints one line per example: status, egg-opt wall time, registers.
set -uo pipefail
bin=$1; out=$2; shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
examples=("$@")
((${#examples[@]})) || examples=("$here"/examples/*.mlir)
ptxas=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null || true)
mkdir -p "$out"
fail=0
for ex in "${examples[@]}"; do
  n=$(basename "$ex" .mlir)
  start=$(date +%s%N)
  if ! "$bin/egg-opt" "$ex" --egg-pipeline="record=$out/$n.decisions.json" \
        -o "$out/$n.gpu.mlir" 2>"$out/$n.err"; then
    echo "FAIL $n: egg-opt: $(head -c 400 "$out/$n.err")"; fail=1; continue
  fi
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  if ! "$bin/egg-translate" --egg-to-manifest "$out/$n.gpu.mlir" -o "$out/$n.manifest.json" 2>>"$out/$n.err" ||
     ! "$bin/egg-translate" --egg-to-ptx --egg-ptx-dir="$out/$n.ptx" "$out/$n.gpu.mlir" \
        -o "$out/$n.ptx.list" 2>>"$out/$n.err"; then
    echo "FAIL $n: egg-translate: $(head -c 400 "$out/$n.err")"; fail=1; continue
  fi
  regs=""
  if [[ -n $ptxas ]]; then
    # One PTX file per kernel module, as egg-translate listed them.
    while read -r part; do
      report=$("$ptxas" -arch=sm_90a -v "$part" -o /dev/null 2>&1) || {
        echo "FAIL $n: ptxas: $report" | head -5; fail=1; continue 2; }
      if grep -Eq "[1-9][0-9]* bytes spill" <<<"$report"; then
        echo "FAIL $n: spills: $(grep spill <<<"$report")"; fail=1; continue 2
      fi
      regs+="$(grep -o 'Used [0-9]* registers' <<<"$report" | grep -o '[0-9]*') "
    done < "$out/$n.ptx.list"
  fi
  echo "OK   $n  ${ms} ms  registers: ${regs:-n/a}"
done
exit $fail
