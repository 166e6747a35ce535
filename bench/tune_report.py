#!/usr/bin/env python3
"""The egg-tune table for docs/benchmarks.md: per example, the expert's
initial choice, the best each agent found, PyTorch eager / torch.compile and
cuBLAS where egg-eval ran it, with ratios.

    tune_report.py TUNE_DIR TORCH_JSON
TUNE_DIR holds <agent>/<example>/report.json as scripts/gpu-check.sh writes."""
import glob, json, math, os, sys

root, torch_path = sys.argv[1], sys.argv[2]
torch = json.load(open(torch_path)) if os.path.exists(torch_path) else {}
reports = {}
for path in glob.glob(os.path.join(root, "*", "*", "report.json")):
    agent, name = path.split(os.sep)[-3:-1]
    reports.setdefault(name, {})[agent] = json.load(open(path))

def ms(v):
    return "-" if v is None or v < 0 else f"{v:.4f}"

print("| example | expert (initial) ms | expert-tuned ms | search ms | search cand. | "
      "eager ms | torch.compile ms | cuBLAS ms | best vs expert | best vs eager | best vs compile |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
ratios = {"expert": [], "eager": [], "compile": []}
for name in sorted(reports):
    r = reports[name]
    any_r = next(iter(r.values()))
    initial = any_r["function"]["initial_ms"]
    tuned = r.get("expert", {}).get("function", {}).get("best_ms")
    search = r.get("search", {}).get("function", {}).get("best_ms")
    cands = sum(k["candidates"] for k in r.get("search", {}).get("kernels", []))
    best = min(v for v in (tuned, search, initial) if v is not None and v > 0)
    t = torch.get(name, {})
    eager, comp = t.get("eager_ms"), t.get("compile_ms")
    blas = None
    for rep in r.values():
        blas = rep["function"]["baselines"].get("cuBLAS (contraction alone)", blas)
    ratios["expert"].append(initial / best)
    if eager: ratios["eager"].append(eager / best)
    if comp: ratios["compile"].append(comp / best)
    print(f"| {name} | {ms(initial)} | {ms(tuned)} | {ms(search)} | {cands} | {ms(eager)} | "
          f"{ms(comp)} | {ms(blas)} | {initial / best:.2f}x | "
          f"{'-' if not eager else f'{eager / best:.2f}x'} | {'-' if not comp else f'{comp / best:.2f}x'} |")
geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
print(f"\nGeometric means over {len(reports)} examples: best over the expert's "
      f"initial choice {geo(ratios['expert']):.2f}x, over eager {geo(ratios['eager']):.2f}x, "
      f"over torch.compile {geo(ratios['compile']):.2f}x.")
