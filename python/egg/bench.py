"""python -m egg.bench DIR_OR_FILES... : KernelBench-format problems through
EGG, side by side with PyTorch eager and torch.compile on the same GPU.

Per problem: import (egg front end) -> egg-opt with the expert agent ->
egg-eval (correctness against the float64 reference on fresh random inputs,
then CUDA-event timing, L2 flushed) -> optionally egg-tune with a budget ->
PyTorch eager and torch.compile timed the same way. Prints the table, fast_p
(the fraction of problems that are correct and faster than eager by more
than p) and geometric-mean speedups; writes JSON and, with --tune, each
problem's egg-tune HTML report. TF32 stays off, except for problems that
set ``ALLOW_TF32 = True``: those run with TF32 allowed in EGG and in
PyTorch, and their rows say so."""
import argparse
import glob
import json
import math
import os
import subprocess
import sys
from pathlib import Path

from .frontend import UnsupportedOp
from .kernelbench import import_problem, problem_allows_tf32
from .timing import l2_flush_mode
from .tools import CompileError, allowing_tf32, compile_mlir, find_tool


def problem_files(paths):
    files = []
    for p in paths:
        files += sorted(glob.glob(os.path.join(p, "*.py"))) if os.path.isdir(p) else [p]
    return files


def run_egg_eval(manifest, source, out_json, trials):
    r = subprocess.run([find_tool("egg-eval"), str(manifest), f"--source={source}",
                        f"--json={out_json}", f"--trials={trials}",
                        f"--l2-flush={l2_flush_mode()}"],
                       capture_output=True, text=True, timeout=900)
    try:
        return json.load(open(out_json))
    except (OSError, ValueError):
        return {"status": "error", "reason": (r.stdout + r.stderr).strip()[-300:]}


def torch_times(model, inputs, compile_too=True, allow_tf32=False):
    import torch
    from .timing import time_ms
    model = model.cuda()
    args = [x.cuda() for x in inputs]
    out = {}
    # TF32 only for problems that allow it (then for both sides).
    torch.backends.cuda.matmul.allow_tf32 = allow_tf32
    torch.backends.cudnn.allow_tf32 = allow_tf32
    with torch.no_grad():
        out["eager_ms"] = time_ms(model, args)
        if compile_too:
            try:
                out["compile_ms"] = time_ms(torch.compile(model), args)
            except Exception as e:  # Reported, never hidden.
                out["compile_error"] = str(e)[:200]
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m egg.bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", help="problem files or folders of them")
    ap.add_argument("--out", default="egg-bench", help="output folder")
    ap.add_argument("--chip", default="sm_90a")
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--tune", type=int, default=0, metavar="N",
                    help="also run egg-tune with at most N candidates per kernel")
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    ap.add_argument("--p", type=float, nargs="*", default=[0.0, 0.5, 1.0],
                    help="thresholds for fast_p (speedup over eager > 1 + p)")
    args = ap.parse_args(argv)
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False  # f32 stays f32 (no TF32).
    torch.backends.cudnn.allow_tf32 = False
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for path in problem_files(args.paths):
        name = Path(path).stem
        row = {"problem": name}
        rows.append(row)
        try:
            _, model, inputs, imported = import_problem(path)
        except UnsupportedOp as e:
            row.update(status="unsupported", reason=str(e))
            continue
        work = out / name
        work.mkdir(exist_ok=True)
        source = work / f"{name}.mlir"
        tf32 = problem_allows_tf32(path)
        row["tf32"] = tf32
        source.write_text(allowing_tf32(imported.mlir) if tf32 else imported.mlir)
        try:
            manifest, _ = compile_mlir(source, work, chip=args.chip)
        except CompileError as e:
            row.update(status="compile-error", reason=str(e)[-300:])
            continue
        result = run_egg_eval(manifest, source, work / "eval.json", args.trials)
        row["status"] = result.get("status")
        row["reason"] = result.get("reason", "")
        row["egg_ms"] = result.get("timing", {}).get("median_ms")
        roof = result.get("roofline", {})
        row["floor_ms"] = max(roof.get("memory_floor_ms", 0), roof.get("compute_floor_ms", 0)) or None
        row["bytes"] = roof.get("bytes")
        # A copy of the same bytes, timed alike: what this size allows.
        row["copy_ms"] = roof.get("same_size_copy_ms")
        # cuBLAS on the function's contraction in egg-eval's own process, on
        # the same inputs (the contraction alone: no epilogue).
        blas = result.get("baselines", {}).get("cublas")
        row["cublas_ms"] = blas.get("median_ms") if isinstance(blas, dict) else None
        if args.tune and row["status"] == "ok":
            r = subprocess.run([find_tool("egg-tune"), str(source), "-o", str(work / "tune"),
                                f"--max-candidates={args.tune}", "--quiet",
                                f"--chip={args.chip}",
                                f"--eval-arg=--l2-flush={l2_flush_mode()}"],
                               capture_output=True, text=True)
            try:
                rep = json.load(open(work / "tune" / "report.json"))
                row["tuned_ms"] = rep["function"]["best_ms"]
            except (OSError, ValueError, KeyError):
                row["tune_error"] = (r.stdout + r.stderr)[-300:]
        row.update(torch_times(model, inputs, not args.no_compile, tf32))
        best = min(v for v in (row.get("egg_ms"), row.get("tuned_ms")) if v) if row.get("egg_ms") else None
        row["best_ms"] = best
        print(f"{name:24s} {row['status']:10s} egg {fmt(row.get('egg_ms'))} tuned {fmt(row.get('tuned_ms'))} "
              f"eager {fmt(row.get('eager_ms'))} compile {fmt(row.get('compile_ms'))}", flush=True)
        # The rows so far, so that a run cut short keeps what it measured.
        json.dump({"rows": rows}, open(out / "bench.partial.json", "w"), indent=1)
    summary = summarize(rows, args.p)
    json.dump({"rows": rows, "summary": summary}, open(out / "bench.json", "w"), indent=1)
    print_table(rows, summary)
    return 0


def fmt(v):
    return "-" if v is None else f"{v:.4f}"


def summarize(rows, ps):
    ok = [r for r in rows if r.get("status") == "ok" and r.get("best_ms")]
    n = len(rows)
    fast = {f"fast_{p:g}": sum(1 for r in ok if r.get("eager_ms") and r["eager_ms"] / r["best_ms"] > 1 + p) / n
            for p in ps} if n else {}
    geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None  # noqa: E731
    return {"problems": n, "correct": len(ok), **fast,
            "geomean_vs_eager": geo([r["eager_ms"] / r["best_ms"] for r in ok if r.get("eager_ms")]),
            "geomean_vs_compile": geo([r["compile_ms"] / r["best_ms"] for r in ok if r.get("compile_ms")])}


def floor_pct(r, key):
    """Time `key` as a fraction of the problem's floor (bytes moved at the
    measured copy bandwidth, or the compute floor if larger)."""
    f, t = r.get("floor_ms"), r.get(key)
    return f"{100 * f / t:.0f}%" if f and t else "-"


def copy_pct(r):
    """Best time against a device-to-device copy of the same bytes at the
    same size (egg-eval's same_size_copy_ms): the floor less the ramp-up
    and drain that a short run pays."""
    c, t = r.get("copy_ms"), r.get("best_ms")
    return f"{100 * c / t:.0f}%" if c and t else "-"


def print_table(rows, summary):
    print("\n| problem | status | egg ms | tuned ms | eager ms | torch.compile ms | floor ms | "
          "egg GB/s | egg / floor | same-size copy ms | egg / copy | eager / floor | compile / floor | "
          "vs eager | vs compile |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        b = r.get("best_ms")
        ve = f"{r['eager_ms'] / b:.2f}x" if b and r.get("eager_ms") else "-"
        vc = f"{r['compile_ms'] / b:.2f}x" if b and r.get("compile_ms") else "-"
        gbps = f"{r['bytes'] / (b * 1e6):.0f}" if b and r.get("bytes") else "-"
        tf32 = " (TF32 allowed)" if r.get("tf32") else ""
        print(f"| {r['problem']}{tf32} | {r.get('status')} | {fmt(r.get('egg_ms'))} | {fmt(r.get('tuned_ms'))} | "
              f"{fmt(r.get('eager_ms'))} | {fmt(r.get('compile_ms'))} | {fmt(r.get('floor_ms'))} | {gbps} | "
              f"{floor_pct(r, 'best_ms')} | {fmt(r.get('copy_ms'))} | {copy_pct(r)} | {floor_pct(r, 'eager_ms')} | {floor_pct(r, 'compile_ms')} | {ve} | {vc} |")
    print_cublas_table(rows)
    s = summary
    fast = ", ".join(f"{k} = {v:.2f}" for k, v in s.items() if k.startswith("fast_"))
    ge = s.get("geomean_vs_eager")
    gc = s.get("geomean_vs_compile")
    print(f"\n{s['correct']}/{s['problems']} correct; {fast}; geometric-mean speedup over eager "
          f"{'-' if ge is None else f'{ge:.2f}x'}, over torch.compile {'-' if gc is None else f'{gc:.2f}x'}.")


def print_cublas_table(rows):
    """egg against cuBLAS timed by egg-eval in the same process on the same
    inputs (what #8's "of cuBLAS" targets compare); PyTorch's eager column
    above uses its own timer and its own cuBLAS call. cuBLAS computes the
    contraction alone, so a row with an epilogue compares more work with
    less."""
    blas = [r for r in rows if r.get("cublas_ms") and r.get("egg_ms")]
    if not blas:
        return
    print("\n| problem | egg ms | cuBLAS ms (egg-eval, same process) | cuBLAS / egg |")
    print("|---|---|---|---|")
    for r in blas:
        tf32 = " (TF32 allowed)" if r.get("tf32") else ""
        print(f"| {r['problem']}{tf32} | {fmt(r['egg_ms'])} | {fmt(r['cublas_ms'])} | "
              f"{r['cublas_ms'] / r['egg_ms']:.2f}x |")


if __name__ == "__main__":
    sys.exit(main())
