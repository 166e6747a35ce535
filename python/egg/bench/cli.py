"""python -m egg.bench PATHS... : KernelBench-format problems through EGG,
judged the KernelBench way, beside PyTorch eager and torch.compile on the
same GPU in the same process. docs/kernelbench.md describes the method and
holds the latest full table."""
import argparse
import datetime
import glob
import json
import os
import subprocess
import sys
from pathlib import Path

from . import driver, report
from .store import CompileCache, Results, problem_key
from .worker import Options

COMPILE_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


def problem_files(paths):
    """The problem files of `paths` (files, or folders of them), in order."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(glob.glob(os.path.join(p, "*.py")), key=report_order)
            files += [f for f in found if not os.path.basename(f).startswith("_")]
        elif os.path.isfile(p):
            files.append(p)
        else:
            raise SystemExit(f"python -m egg.bench: no such problem file or folder: {p}")
    return files


def report_order(path):
    return report._number({"problem": Path(path).stem})


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="python -m egg.bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", help="problem files or folders of them")
    ap.add_argument("--out", default="egg-bench",
                    help="run folder: results.jsonl (resumed), bench.json, kernelbench.md, logs")
    ap.add_argument("--markdown", help="also write the markdown table here")
    ap.add_argument("--chip", default="sm_90a")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--input-sets", type=int, default=5,
                    help="input sets checked: the problem's own, then fresh random ones")
    ap.add_argument("--compile-mode", default="default", choices=COMPILE_MODES,
                    help="torch.compile's mode (named in the table)")
    ap.add_argument("--no-compile", action="store_true", help="do not time torch.compile")
    ap.add_argument("--compile-cache", default=None,
                    help="torch.compile times kept across runs (default: OUT/torch-compile-cache.json)")
    ap.add_argument("--tune", type=int, default=0, metavar="N",
                    help="also egg-tune with at most N candidates a kernel; its winner is timed here")
    ap.add_argument("--no-f64", action="store_true",
                    help="skip the float64 checks (PyTorch in float64 on the GPU, egg-eval's interpreter)")
    ap.add_argument("--f64-max-iterations", type=float, default=5e8,
                    help="skip the float64 check where its reference takes more loop iterations")
    ap.add_argument("--timing-budget-ms", type=float, default=1000.0,
                    help="GPU time for each timed method of a problem")
    ap.add_argument("--budget-minutes", type=float, default=0,
                    help="stop handing out problems after this long (0: no limit); run again to resume")
    ap.add_argument("--problem-timeout", type=float, default=300,
                    help="seconds before a problem counts as hung")
    ap.add_argument("--gpus", type=int, default=None, help="GPUs to use (default: all visible)")
    ap.add_argument("--cluster", metavar="ray[:ADDRESS]",
                    help="run the problems on a Ray cluster, one GPU task each (docs/cluster.md)")
    ap.add_argument("--bundle", default=os.environ.get("EGG_BUNDLE"),
                    help="static tool archive shipped to the cluster's workers "
                         "(scripts/build-bundle.sh; default: $EGG_BUNDLE)")
    ap.add_argument("--rerun", nargs="*", default=[], choices=report.STATUSES[:-1],
                    help="run again the problems stored with these statuses")
    ap.add_argument("--report-only", action="store_true",
                    help="write the table from the stored rows; run nothing")
    args = ap.parse_args(argv)
    if args.input_sets < 1:
        ap.error("--input-sets must be at least 1")
    return args


def git_commit():
    try:
        here = Path(__file__).resolve().parents[3]
        return subprocess.run(["git", "-C", str(here), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


# Options that steer a run (where it keeps its rows, how long it goes on)
# but do not change what a row means: left out of the command in a table.
RUN_CONTROL = {"--out": 1, "--markdown": 1, "--compile-cache": 1, "--budget-minutes": 1,
               "--problem-timeout": 1, "--gpus": 1,
               "--cluster": 1, "--bundle": 1, "--report-only": 0, "--rerun": None}


def shown_command(argv):
    shown, i = [], 0
    while i < len(argv):
        a, i = argv[i], i + 1
        name = a.split("=")[0]
        if name not in RUN_CONTROL:
            shown.append(a)
        elif "=" not in a and RUN_CONTROL[name] is None:  # Any number of values.
            while i < len(argv) and not argv[i].startswith("-"):
                i += 1
        elif "=" not in a:
            i += RUN_CONTROL[name]
    return "python -m egg.bench " + " ".join(shown)


def header(args, rows, argv):
    gpus = sorted({r["gpu"] for r in rows if r.get("gpu")})
    torches = sorted({r["torch"] for r in rows if r.get("torch")})
    commits = sorted({r["commit"] for r in rows if r.get("commit")})
    return {
        "command": f"`{shown_command(argv)}` (resumed runs: `bench/kernelbench.sh` on a GPU host)",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": ", ".join(commits) or os.environ.get("EGG_COMMIT") or git_commit(),
        "GPU": ", ".join(gpus) or "-",
        "PyTorch": ", ".join(torches) or "-",
        "torch.compile mode": "not timed" if args.no_compile else args.compile_mode,
        "check": f"egg's outputs against the PyTorch model's on the GPU, on the problem's inputs "
                 f"and {args.input_sets - 1} fresh random sets; atol = rtol = 1e-2 for f32 "
                 f"(bf16 2e-2, integers exact). Beside it, float64: the PyTorch model run in float64 "
                 f"on the GPU (relative L2 error; f32 outputs within 1e-4) and egg-eval's float64 "
                 f"interpreter of the import where it takes at most {args.f64_max_iterations:g} "
                 f"loop iterations. A wrong row's reason says when PyTorch's own float32 output "
                 f"also fails the check against the model in float64 (an ill-conditioned problem)",
        "timing": "CUDA events, L2 flushed before each run, median; eager, torch.compile and "
                  "egg timed in one process",
    }


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    paths = problem_files(args.paths)
    results = Results(out)
    left = []
    if not args.report_only:
        opts = Options(out=str(out), chip=args.chip, seed=args.seed, input_sets=args.input_sets,
                       torch_compile=not args.no_compile, compile_mode=args.compile_mode,
                       tune=args.tune, f64=not args.no_f64,
                       f64_max_iterations=args.f64_max_iterations,
                       timing_budget_ms=args.timing_budget_ms)
        cache = CompileCache(args.compile_cache or out / "torch-compile-cache.json")
        if args.cluster:
            from ..cluster import ClusterError
            from . import on_cluster
            try:
                left = on_cluster.run(paths, opts, results, cache, args.cluster, args.bundle,
                                      args.budget_minutes * 60, args.problem_timeout,
                                      tuple(args.rerun))
            except ClusterError as e:
                raise SystemExit(f"python -m egg.bench: {e}")
        else:
            left = driver.run(paths, opts, results, cache, driver.visible_gpus(args.gpus),
                              args.budget_minutes * 60, args.problem_timeout,
                              tuple(args.rerun))
    rows = []
    for p in paths:
        row = results.rows.get(problem_key(p))
        rows.append(row or {"problem": Path(p).stem, "level": Path(p).resolve().parent.name,
                            "status": None})
    summary = report.summarize(rows)
    head = header(args, rows, argv)
    json.dump({"header": head, "summary": summary, "rows": rows},
              open(out / "bench.json", "w"), indent=1)
    text = report.markdown(rows, head)
    (out / "kernelbench.md").write_text(text)
    if args.markdown:
        Path(args.markdown).write_text(text)
    print("\n".join(report.summary_lines(summary, "all problems")))
    if left:
        print(f"\n{len(left)} problems not run within the budget: run the same command again "
              f"to go on.")
    return 0
