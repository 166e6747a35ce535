#!/usr/bin/env python3
"""Markdown table of egg-eval results next to PyTorch eager / torch.compile.

    report.py RESULTS.json TORCH.json > table.md

RESULTS.json: {example: egg-eval JSON} (scripts/gpu-check.sh writes it);
TORCH.json: bench/torch_baselines.py output. Ratios are baseline / egg
(above 1: egg is faster).
"""
import json
import math
import sys

egg = json.load(open(sys.argv[1]))
torch = json.load(open(sys.argv[2])) if len(sys.argv) > 2 else {}

print("| problem | status | egg ms | GB/s | % of floor | eager ms | compile ms "
      "| cuBLAS ms | eager/egg | compile/egg | cuBLAS/egg |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
ratios_e, ratios_c = [], []
for name in sorted(egg):
    r = egg[name]
    t, f = r.get("timing", {}), r.get("roofline", {})
    ms = t.get("median_ms")
    b = torch.get(name, {})
    eager, comp = b.get("eager_ms"), b.get("compile_ms")

    def fmt(v, p=4):
        return "-" if v is None else f"{v:.{p}f}"

    blas = r.get("baselines", {}).get("cublas")
    blas = blas.get("median_ms") if isinstance(blas, dict) else None
    rb = blas / ms if blas and ms else None
    re = eager / ms if eager and ms else None
    rc = comp / ms if comp and ms else None
    if re:
        ratios_e.append(re)
    if rc:
        ratios_c.append(rc)
    print(f"| {name} | {r.get('status')} | {fmt(ms)} | "
          f"{fmt(f.get('achieved_gbps'), 0)} | "
          f"{fmt(100 * f['fraction_of_floor'] if 'fraction_of_floor' in f else None, 1)} | "
          f"{fmt(eager)} | {fmt(comp)} | {fmt(blas)} | {fmt(re, 2)} | "
          f"{fmt(rc, 2)} | {fmt(rb, 2)} |")


def gmean(v):
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")


print(f"\nGeometric mean over {len(ratios_e)} problems: eager/egg "
      f"{gmean(ratios_e):.3f}, torch.compile/egg {gmean(ratios_c):.3f}.")
