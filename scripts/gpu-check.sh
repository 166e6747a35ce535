#!/usr/bin/env bash
# The one GPU script: runs on the GPU host (no LLVM there), from the
# repository root, with the static tool bundle carried in .bundle/.
#   1. the bundle's tools start and need no LLVM/MLIR shared library;
#   2. every example compiles there to PTX that ptxas accepts without spills;
#   3. egg-eval checks and times every example against the float64 reference;
#   4. TMA variants of three examples (scripts/gpu-gemm-variants.py);
#      the fault-injection tests (test/GPU/faults.py);
#   5. timing noise: two examples timed twice.
#   6. PyTorch eager / torch.compile on the same problems, and the table.
#   7. the GPU-only tests: lit's `REQUIRES: gpu` (scripts/gpu-lit.sh) and the
#      Python package's (test_runtime.py, test_bench_gpu.py).
# Results go to $OUT (or ./out): gpu-check.log, results.json, torch.json,
# benchmarks.md, evals.tar.xz.
set -uo pipefail
out=${OUT:-$PWD/out}
mkdir -p "$out"
exec > >(tee "$out/gpu-check.log") 2>&1
export PATH=/usr/local/cuda/bin:$PATH
tools=$(mktemp -d)
tar -C "$tools" -xJf .bundle/egg-tools-linux-x86_64.tar.xz
bin=$tools/egg-tools/bin
work=$(mktemp -d)

# The GPU-only tests; lit and FileCheck from the wheels in .whl/ where carried.
gpu_tests() {
  if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
      --target /tmp/egg-site .whl/*.whl && export PYTHONPATH=/tmp/egg-site:${PYTHONPATH:-}
  fi
  echo "== GPU tests: lit (REQUIRES: gpu)"
  if python3 -c "import lit, filecheck" 2>/dev/null; then
    PATH=/tmp/egg-site/bin:$PATH scripts/gpu-lit.sh "$bin" "$work/lit"
  else
    echo "FAIL: lit and filecheck are missing (carry .whl: docs/building.md)"
  fi
  echo "== GPU tests: Python package (egg.compile, python -m egg.bench's worker)"
  EGG_TOOLS=$bin PYTHONPATH=python:${PYTHONPATH:-} python3 -m pytest -q -p no:cacheprovider \
    python/tests/test_runtime.py python/tests/test_bench_gpu.py
}

# EGG_GPU_CHECK=tests: the GPU-only tests alone.
if [[ ${EGG_GPU_CHECK:-all} == tests ]]; then
  gpu_tests
  exit 0
fi

# EGG_GPU_CHECK=cluster: egg-tune on a local Ray cluster of this host's
# GPUs beside the same run without one (docs/cluster.md); needs Ray in the
# host's Python. Decisions should match (timing noise may swap near-ties).
if [[ ${EGG_GPU_CHECK:-all} == cluster ]]; then
  if ! python3 -c "import ray" 2>/dev/null; then
    echo "SKIP: Ray is not installed on this host"; exit 0
  fi
  bundle=$PWD/.bundle/egg-tools-linux-x86_64.tar.xz
  for n in ${EGG_CLUSTER_EXAMPLES:-gemm_bias_relu softmax}; do
    for where in local cluster; do
      extra=()
      [[ $where == cluster ]] && extra=(--cluster=ray "--bundle=$bundle")
      echo "== egg-tune $n ($where)"
      start=$(date +%s.%N)
      EGG_PYTHON=python3 PYTHONPATH=$PWD/python:${PYTHONPATH:-} "$bin/egg-tune" \
        "examples/$n.mlir" -o "$out/cluster/$n-$where" --agent=search --max-candidates=12 \
        --evaluator=gpu "${extra[@]}" 2>&1 | tail -3
      echo "wall: $(echo "$(date +%s.%N) - $start" | bc) s"
    done
    if cmp -s "$out/cluster/$n-local/$n.decisions.json" "$out/cluster/$n-cluster/$n.decisions.json"; then
      echo "decisions: same"
    else
      echo "decisions: differ"
    fi
  done
  exit 0
fi

# EGG_GPU_CHECK=examples: steps 1-3 only (compile, check and time every
# example), for a quick check of a lowering change.
# EGG_GPU_CHECK=tune: only the egg-tune runs (expert and search agents on a
# set of examples, with PyTorch baselines), written to $out/tune/.
if [[ ${EGG_GPU_CHECK:-all} == tune ]]; then
  names=${EGG_TUNE_EXAMPLES:-"elementwise_chain broadcast_add transpose relu_f16 gelu_bias row_sum softmax scale_mask_softmax layernorm rmsnorm gemm_bias_relu matmul_f32 matmul_bf16 batch_matmul conv_bias_relu conv_nhwc_stride2"}
  echo "== PyTorch baselines"
  python3 bench/torch_baselines.py "$out/torch.json" $names 2>&1 | grep -v Warning
  for agent in expert search; do
    for n in $names; do
      python3 -c "import json,sys; t=json.load(open(sys.argv[1])).get(sys.argv[2],{}); json.dump({k: v for k, v in (('eager', t.get('eager_ms')), ('torch.compile', t.get('compile_ms'))) if v}, open(sys.argv[3],'w'))" \
        "$out/torch.json" "$n" "$work/$n.baselines.json"
      echo "== egg-tune --agent=$agent $n"
      timeout 600 "$bin/egg-tune" "examples/$n.mlir" -o "$out/tune/$agent/$n" --agent=$agent \
        --max-candidates=${EGG_TUNE_CANDIDATES:-12} --db="$work/tune-$agent.sqlite" \
        --baselines="$work/$n.baselines.json" --eval-arg=--timing-budget-ms=100 --quiet 2>&1 | tail -4
      rm -rf "$out/tune/$agent/$n/candidates"
    done
  done
  python3 bench/tune_report.py "$out/tune" "$out/torch.json" | tee "$out/tune.md"
  cp "$work"/tune-*.sqlite "$out/tune/" 2>/dev/null
  exit 0
fi

echo "== host"
uname -srm; ldd --version | head -1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv,noheader || true
echo "== bundle: shared libraries of each tool"
for t in egg-opt egg-translate egg-eval; do
  echo "$t: $(ldd "$bin/$t" | awk '{print $1}' | tr '\n' ' ')"
  ldd "$bin/$t" | grep -Eq 'libLLVM|libMLIR' && echo "FAIL: $t links LLVM/MLIR"
done

echo "== compile every example on this host (expert agent)"
scripts/check-examples.sh "$bin" "$work/ex"

echo "== evaluate every example (5 trials, fresh inputs; cold L2)"
printf "%-22s %-9s %10s %10s %9s %8s %s\n" example status median_ms floor_ms GB/s floor% reason
for ex in examples/*.mlir; do
  n=$(basename "$ex" .mlir)
  [[ -f $work/ex/$n.manifest.json ]] || { echo "$n: not compiled"; continue; }
  timeout 300 "$bin/egg-eval" "$work/ex/$n.manifest.json" --source="$ex" \
    --json="$work/ex/$n.eval.json" >"$work/ex/$n.eval.log" 2>&1
  python3 - "$n" "$work/ex/$n.eval.json" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{name:22s} no-result {e}"); sys.exit()
t, f = r.get("timing", {}), r.get("roofline", {})
b = r.get("baselines", {}).get("cublas")
blas = f" cuBLAS {b['median_ms']:.4f} ms" if isinstance(b, dict) else ""
print(f"{name:22s} {r['status']:9s} {t.get('median_ms', 0):10.4f} "
      f"{max(f.get('memory_floor_ms', 0), f.get('compute_floor_ms', 0)):10.4f} "
      f"{f.get('achieved_gbps', 0):9.1f} {100 * f.get('fraction_of_floor', 0):7.1f}% "
      f"{r.get('reason', '')[:80]}{blas}")
PY
done

if [[ ${EGG_GPU_CHECK:-all} == examples ]]; then
  tar -C "$work" -cJf "$out/evals.tar.xz" ex 2>/dev/null
  exit 0
fi

echo "== hardware counters (ncu) and CUDA-graph replay on two examples"
for n in elementwise_chain matmul_f32; do
  "$bin/egg-eval" "$work/ex/$n.manifest.json" --source=examples/$n.mlir --trials=1 \
    --ncu --cuda-graph --json="$work/ex/$n.ncu.json" | tail -3
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); c=r.get('counters'); print(json.dumps(c, indent=1)[:1500])" "$work/ex/$n.ncu.json"
done

echo "== TMA copies (a producer warpgroup; the expert takes them for long-K 128x256 tiles): variants of small products"
# One and two computing warpgroups (setmaxnreg), all four operand layouts
# between them, an epilogue; each against the float64 reference.
EGG_TRIALS=1 EGG_VARIANTS_MATCH="copy = tma" timeout 240 \
  python3 scripts/gpu-gemm-variants.py "$bin" "$work/tma" matmul_f16 \
  linear_f16_relu matmul_at_bf16 2>&1 | tail -8

echo "== fault injection"
python3 test/GPU/faults.py "$bin" "$work/faults"

gpu_tests

echo "== timing noise: the same kernel timed twice"
for n in elementwise_chain softmax; do
  for i in 1 2; do
    "$bin/egg-eval" "$work/ex/$n.manifest.json" --source=examples/$n.mlir \
      --trials=1 --json="$work/ex/$n.noise$i.json" >/dev/null 2>&1
  done
  python3 - "$n" "$work/ex/$n.noise1.json" "$work/ex/$n.noise2.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["timing"]["median_ms"] for p in sys.argv[2:4])
print(f"{sys.argv[1]:22s} {a:.4f} ms vs {b:.4f} ms: {100 * abs(a - b) / min(a, b):.2f}% apart")
PY
done

grep -h '"ceilings"' "$work"/ex/*.eval.json | sort | uniq -c | head -3
python3 - "$work/ex" "$out/results.json" <<'PY'
import glob, json, os, sys
results = {}
for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.eval.json"))):
    results[os.path.basename(p)[:-len(".eval.json")]] = json.load(open(p))
json.dump(results, open(sys.argv[2], "w"), indent=1)
PY
echo "== PyTorch eager and torch.compile on the same problems, same GPU"
python3 bench/torch_baselines.py "$out/torch.json" 2>&1 | grep -v Warning
python3 bench/report.py "$out/results.json" "$out/torch.json" | tee "$out/benchmarks.md"
tar -C "$work" -cJf "$out/evals.tar.xz" ex faults 2>/dev/null
echo "== done"
