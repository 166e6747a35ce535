"""Finding and running the EGG tools (egg-opt, egg-translate, egg-eval)."""
import os
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
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = Path(mlir_path).stem
    gpu = out_dir / f"{stem}.gpu.mlir"
    recorded = out_dir / f"{stem}.decisions.json"
    options = f"chip={chip} agent={agent} record={recorded}"
    if decisions:
        options += f" decisions={decisions}"
    r = subprocess.run([find_tool("egg-opt"), str(mlir_path), f"--egg-pipeline={options}",
                        "-o", str(gpu)], capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise CompileError(r.stderr.strip())
    manifest = out_dir / f"{stem}.manifest.json"
    r = subprocess.run([find_tool("egg-translate"), "--egg-to-manifest", str(gpu),
                        "-o", str(manifest)], capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise CompileError(r.stderr.strip())
    return manifest, recorded
