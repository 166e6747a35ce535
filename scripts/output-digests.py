#!/usr/bin/env python3
"""Digests of what the compiler decides and emits for every example and
bench problem: the decisions file and the PTX of each, through the expert
pipeline (`egg-opt --egg-pipeline`, `egg-translate --egg-to-ptx`).

A change that means no behaviour change (a refactoring) must leave every
digest as it was; test/golden/output-digests.json holds them, and
python/tests/test_output_digests.py checks them. A change that is meant to
alter decisions or code rewrites the file with --write and shows the
difference in review.

  scripts/output-digests.py --check [FILE]   # exit 1 on any difference
  scripts/output-digests.py --write [FILE]
Tools: $EGG_TOOLS, else build/bin. KernelBench-format problems are imported
with the Python front end (PyTorch on the CPU).
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "test" / "golden" / "output-digests.json"
PROBLEM_DIRS = ["bench/memory", "bench/gemm", "bench/conv", "python/problems"]


def inputs():
    """(name, path) of every example and bench problem, in a stable order."""
    found = [(f"examples/{p.name}", p) for p in sorted((ROOT / "examples").glob("*.mlir"))]
    for folder in PROBLEM_DIRS:
        found += [(f"{folder}/{p.name}", p) for p in sorted((ROOT / folder).glob("*.py"))]
    return found


def tool(name):
    base = os.environ.get("EGG_TOOLS") or str(ROOT / "build" / "bin")
    return str(Path(base) / name)


def sha(data):
    return hashlib.sha256(data).hexdigest()[:16]


def digest(item):
    """{"decisions": ..., "ptx": ...} for one input, or {"error": ...}."""
    name, path = item
    with tempfile.TemporaryDirectory() as tmp:
        # Fixed relative names, so no temporary path reaches any output.
        if path.suffix == ".py":
            sys.path.insert(0, str(ROOT / "python"))
            from egg.kernelbench import import_problem
            try:
                mlir = import_problem(path)[3].mlir
            except Exception as e:  # A refusal is an outcome to keep too.
                return name, {"error": f"import: {type(e).__name__}: {e}"[:300]}
        else:
            mlir = path.read_text()
        Path(tmp, "input.mlir").write_text(mlir)
        run = lambda *args: subprocess.run(args, cwd=tmp, capture_output=True, text=True)
        r = run(tool("egg-opt"), "input.mlir", "--egg-pipeline=record=decisions.json",
                "-o", "gpu.mlir")
        if r.returncode != 0:
            return name, {"error": "egg-opt: " + r.stderr.strip().splitlines()[0][:300]}
        r = run(tool("egg-translate"), "--egg-to-ptx", "--egg-ptx-dir=ptx", "gpu.mlir",
                "-o", "ptx.list")
        if r.returncode != 0:
            return name, {"error": "egg-translate: " + r.stderr.strip().splitlines()[0][:300]}
        ptx = hashlib.sha256()
        for line in Path(tmp, "ptx.list").read_text().split():
            ptx.update(Path(tmp, line).read_bytes())
        return name, {"decisions": sha(Path(tmp, "decisions.json").read_bytes()),
                      "ptx": ptx.hexdigest()[:16]}


def compute(jobs):
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return dict(pool.map(digest, inputs()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    parser.add_argument("file", nargs="?", default=str(DEFAULT))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    now = compute(args.jobs)
    if args.write:
        Path(args.file).parent.mkdir(parents=True, exist_ok=True)
        Path(args.file).write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
        print(f"wrote {len(now)} digests to {args.file}")
        return 0
    before = json.loads(Path(args.file).read_text())
    differ = [n for n in sorted(set(now) | set(before)) if now.get(n) != before.get(n)]
    for n in differ:
        print(f"{n}: was {before.get(n)}, now {now.get(n)}")
    print(f"{len(now) - len(differ)} of {len(set(now) | set(before))} unchanged")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
