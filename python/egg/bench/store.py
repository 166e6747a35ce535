"""What a run keeps on disk: the rows measured so far (resume) and PyTorch's
torch.compile times (a cache across runs).

Rows go to ``<out>/results.jsonl``, one line each as it is measured, so a
killed run loses at most the problems in flight; a later run with the same
``--out`` skips the problems that already have a row. torch.compile costs
tens of seconds a problem to compile, so its times are kept by problem
(the file's content), GPU, PyTorch version and mode; eager is timed again
in every run, so every ratio in a table is of one run."""
import hashlib
import json
import os
from pathlib import Path

FINAL = ("correct", "wrong", "unsupported", "compile-error", "fault", "timeout", "error")


def problem_key(path):
    """level/stem: the problem's name in the results (level folders may hold
    problems of the same number)."""
    p = Path(path).resolve()
    return f"{p.parent.name}/{p.stem}"


class Results:
    def __init__(self, out):
        self.path = Path(out) / "results.jsonl"
        self.rows = {}
        if self.path.is_file():
            for line in self.path.read_text().splitlines():
                try:
                    row = json.loads(line)
                except ValueError:
                    continue  # A line cut short by a kill.
                self.rows[f"{row['level']}/{row['problem']}"] = row

    def done(self, key, rerun=()):
        row = self.rows.get(key)
        return row is not None and row.get("status") in FINAL and row["status"] not in rerun

    def add(self, row):
        self.rows[f"{row['level']}/{row['problem']}"] = row
        with open(self.path, "a") as f:
            f.write(json.dumps(row) + "\n")
            f.flush()
            os.fsync(f.fileno())


def file_digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


class CompileCache:
    """torch.compile times by problem content, GPU, PyTorch version and mode."""

    def __init__(self, path):
        self.path = Path(path) if path else None
        self.entries = {}
        if self.path and self.path.is_file():
            try:
                self.entries = json.loads(self.path.read_text())
            except ValueError:
                self.entries = {}

    @staticmethod
    def key(problem_path, gpu, torch_version, mode):
        return f"{file_digest(problem_path)}|{gpu}|{torch_version}|{mode}"

    def get(self, key):
        return self.entries.get(key)

    def put(self, key, problem, row):
        if not self.path or row.get("compile_ms") is None or row.get("compile_cached"):
            return
        self.entries[key] = {"problem": problem, "compile_ms": row["compile_ms"],
                             "compile_s": row.get("torch_compile_s")}
        tmp = self.path.with_suffix(".tmp")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(self.entries, indent=1, sort_keys=True) + "\n")
        tmp.replace(self.path)
