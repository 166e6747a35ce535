#!/usr/bin/env python3
"""Same-process A/B of two compiler versions on the GPU.

Timings of one kernel move by a few percent between device calls, more than
many changes are worth; comparing two versions means timing both in the
same call, alternated. Compile here with both tool directories, carry the
manifests (they embed the PTX), and time them on the GPU host:

    scripts/ab-kernels.py compile A_BIN B_BIN OUT file.mlir...
        # OUT/<name>.A.json, OUT/<name>.B.json, OUT/sources.json;
        # reports the inputs whose PTX is the same in A and B (no need to time)
    scripts/ab-kernels.py run EGG_EVAL OUT [--rounds N]
        # on the GPU host: egg-eval A, B, A, B... (one correctness trial each,
        # no cuBLAS baseline), then the medians and B / A per input

A_BIN and B_BIN hold egg-opt and egg-translate (a build of main and one of a
branch: `git worktree` + its own build directory, or the static bundles of
two revisions)."""
import json
import subprocess
import sys
from pathlib import Path


def compile_all(a_bin, b_bin, out, sources):
    out.mkdir(parents=True, exist_ok=True)
    kept = {}
    for source in sources:
        name = source.stem
        modules = {}
        for tag, tools in (("A", a_bin), ("B", b_bin)):
            gpu = out / f"{name}.{tag}.gpu.mlir"
            manifest = out / f"{name}.{tag}.json"
            for cmd in ([str(tools / "egg-opt"), str(source), "--egg-pipeline=chip=sm_90a",
                         "-o", str(gpu)],
                        [str(tools / "egg-translate"), "--egg-to-manifest", str(gpu),
                         "-o", str(manifest)]):
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode:
                    sys.exit(f"{name} ({tag}): {' '.join(cmd[:2])} failed:\n{r.stderr}")
            gpu.unlink()
            modules[tag] = json.loads(manifest.read_text())["modules"]
        same = modules["A"] == modules["B"]
        print(f"{name:32s} {'same PTX (not timed)' if same else 'PTX differs'}")
        if not same:
            kept[name] = str(source)
    (out / "sources.json").write_text(json.dumps(kept, indent=1))


def run_all(egg_eval, out, rounds):
    sources = json.loads((out / "sources.json").read_text())
    print(f"{'input':32s} {'A ms':>9s} {'B ms':>9s} {'B / A':>7s}  (medians of {rounds} alternated runs)")
    failures = 0
    for name, source in sources.items():
        times = {"A": [], "B": []}
        for _ in range(rounds):
            for tag in ("A", "B"):
                report = out / f"{name}.{tag}.eval.json"
                r = subprocess.run([egg_eval, str(out / f"{name}.{tag}.json"),
                                    f"--source={source}", "--trials=1", "--baseline=false",
                                    f"--json={report}"], capture_output=True, text=True,
                                   timeout=300)
                result = json.loads(report.read_text()) if report.exists() else {}
                if r.returncode or result.get("status") != "ok":
                    failures += 1
                    print(f"{name} ({tag}): {result.get('status', 'no result')} "
                          f"{result.get('reason', r.stderr[-300:])}")
                    continue
                times[tag].append(result["timing"]["median_ms"])
        if times["A"] and times["B"]:
            a, b = sorted(times["A"])[len(times["A"]) // 2], sorted(times["B"])[len(times["B"]) // 2]
            print(f"{name:32s} {a:9.4f} {b:9.4f} {b / a:7.3f}")
    return failures


def main():
    if len(sys.argv) >= 5 and sys.argv[1] == "compile":
        compile_all(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]),
                    [Path(p) for p in sys.argv[5:]])
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == "run":
        rounds = int(sys.argv[5]) if len(sys.argv) >= 6 and sys.argv[4] == "--rounds" else 2
        return 1 if run_all(sys.argv[2], Path(sys.argv[3]), rounds) else 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
