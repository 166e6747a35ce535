"""Finding and running the EGG tools (egg-opt, egg-translate, egg-eval,
egg-tune)."""
import os
import re
import shutil
import subprocess
from pathlib import Path


def find_tool(name):
    """$EGG_TOOLS/<name>, then the repository's build/bin, then PATH."""
    candidates = []
    if os.environ.get("EGG_TOOLS"):
        candidates.append(Path(os.environ["EGG_TOOLS"]) / name)
    candidates.append(Path(__file__).resolve().parents[2] / "build" / "bin" / name)
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    found = shutil.which(name)
    if found:
        return found
    raise FileNotFoundError(f"{name} not found: set EGG_TOOLS to the folder that holds it")


class CompileError(RuntimeError):
    pass


def allowing_tf32(mlir_text):
    """The module of `mlir_text` (top-level functions) with TF32 allowed
    (`egg.allow_tf32`): its f32 products may then read their inputs as
    TF32 on tensor cores. Every tool (egg-opt, egg-tune, egg-eval through
    the manifest) honours the attribute."""
    return "module attributes {egg.allow_tf32} {\n" + mlir_text + "\n}\n"


def compile_mlir(mlir_path, out_dir, chip="sm_90a", agent="expert", decisions=None,
                 timeout=None):
    """egg-opt --egg-pipeline then egg-translate: returns (manifest path,
    decisions path). Raises CompileError with egg-opt's diagnostics, and
    subprocess.TimeoutExpired where a tool runs past `timeout` seconds."""
    recorded = Path(out_dir) / f"{Path(mlir_path).stem}.decisions.json"
    options = f"chip={chip} agent={agent} record={recorded}"
    if decisions:
        options += f" decisions={decisions}"
    manifest, _ = run_pipeline(mlir_path, out_dir, options, timeout)
    return manifest, recorded


def run_pipeline(mlir_path, out_dir, options, timeout=None):
    """egg-opt --egg-pipeline=`options`, then egg-translate: returns (manifest
    path, the tools' diagnostics, warnings included). Raises CompileError
    with egg-opt's or egg-translate's diagnostics, and
    subprocess.TimeoutExpired where a tool runs past `timeout` seconds."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = Path(mlir_path).stem
    gpu = out_dir / f"{stem}.gpu.mlir"
    r = subprocess.run([find_tool("egg-opt"), str(mlir_path), f"--egg-pipeline={options}",
                        "-o", str(gpu)], capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise CompileError(r.stderr.strip())
    diagnostics = r.stderr
    manifest = out_dir / f"{stem}.manifest.json"
    r = subprocess.run([find_tool("egg-translate"), "--egg-to-manifest", str(gpu),
                        "-o", str(manifest)], capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise CompileError((diagnostics + r.stderr).strip())
    return manifest, diagnostics + r.stderr


def default_tune_db():
    """Where egg-tune's records persist between compiles: $EGG_TUNE_DB, else
    $XDG_CACHE_HOME/egg/tune.sqlite (~/.cache by default). Records are keyed
    by what a kernel computes and the chip, so any model that meets the same
    kernel again reuses its measurements."""
    if os.environ.get("EGG_TUNE_DB"):
        return Path(os.environ["EGG_TUNE_DB"])
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "egg" / "tune.sqlite"


class TuneResult:
    """What tune_kernels found: the best decisions and what it cost."""

    def __init__(self, decisions, measured, from_records, failed, seconds, summary):
        self.decisions = decisions
        self.measured = measured  # Candidates timed (or estimated) in this run.
        self.from_records = from_records  # Answered by earlier records.
        self.failed = failed
        self.seconds = seconds
        self.summary = summary  # egg-tune's table.


def tune_kernels(mlir_path, out_dir, candidates, chip="sm_90a", db=None, evaluator="auto",
                 timeout=None):
    """egg-tune over every kernel of `mlir_path`, at most `candidates` a
    kernel, with its records in `db` (default_tune_db()): measured on the
    GPU (or the cost model's estimates where there is none, `evaluator`
    "auto"), each candidate once ever. Returns a TuneResult; raises
    CompileError when egg-tune fails."""
    import time
    out_dir = Path(out_dir)
    db = Path(db) if db else default_tune_db()
    db.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    r = subprocess.run([find_tool("egg-tune"), str(mlir_path), "-o", str(out_dir),
                        f"--max-candidates={candidates}", f"--db={db}", f"--chip={chip}",
                        f"--evaluator={evaluator}"],
                       capture_output=True, text=True, timeout=timeout)
    decisions = out_dir / f"{Path(mlir_path).stem}.decisions.json"
    if r.returncode != 0 or not decisions.is_file():
        raise CompileError(f"egg-tune failed: {(r.stderr or r.stdout).strip()[-2000:]}")
    counts = re.search(r"(\d+) measured, (\d+) from records, (\d+) failed", r.stdout)
    measured, recorded, failed = (int(g) for g in counts.groups()) if counts else (0, 0, 0)
    return TuneResult(decisions, measured, recorded, failed, time.perf_counter() - start,
                      r.stdout)
