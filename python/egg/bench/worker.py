"""One GPU's side of ``python -m egg.bench``: runs problems one at a time and
gives back one result row each.

Per problem: the model and its inputs are built on the GPU from the
problem's seed (KernelBench draws on the CPU, which takes longer than the
run at its official sizes); import (egg front end) and compile (egg-opt
with the expert, egg-translate), loaded through ``egg.compile``'s runtime;
egg's outputs against the PyTorch model's on the problem's inputs and on
fresh random inputs (check.py); then PyTorch eager, egg and, optionally,
torch.compile and egg-tune's winner timed in this one process by one method
(egg/timing.py); last, egg-eval's float64 check of the same kernels.

Run as a process (``python -m egg.bench.worker OPTIONS_JSON RESULT_FD``) it
reads tasks, one JSON line each, on stdin and writes one JSON row per task
to the file descriptor RESULT_FD, so that whatever PyTorch or the tools
print cannot corrupt the results. After a CUDA fault the process exits: the
context is lost, and the driver starts a new worker."""
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..frontend import UnsupportedOp, import_module
from ..kernelbench import exec_problem
from ..tools import CompileError, allowing_tf32, compile_mlir, find_tool
from .check import compare

FAULT_EXIT = 3  # The worker's exit status after a CUDA fault.


@dataclass
class Options:
    out: str = "egg-bench"
    chip: str = "sm_90a"
    seed: int = 42
    input_sets: int = 5  # the problem's own inputs, then fresh ones
    torch_compile: bool = True
    compile_mode: str = "default"
    tune: int = 0
    f64: bool = True
    f64_max_iterations: float = 5e8
    f64_timeout_s: float = 60.0
    timing_budget_ms: float = 1000.0
    tool_timeout_s: float = 300.0


class CudaFault(RuntimeError):
    """The GPU context is lost (an illegal address, a trap): nothing more can
    run in this process."""


def first_error(diagnostics):
    """The first `error:` line of the tools' diagnostics (what went wrong,
    where), not their tail, which is often a dump of the failing IR; the
    whole text when no line says `error:`."""
    for line in diagnostics.splitlines():
        if "error:" in line:
            return line.strip()
    return diagnostics.strip()


def level_of(path):
    return Path(path).resolve().parent.name


def build(module, seed, inputs_only=False):
    """The problem's model and inputs, drawn on the current GPU from `seed`
    (the model in the mode its constructor leaves it, as KernelBench runs
    it)."""
    import torch
    with torch.device("cuda"):
        model = None
        if not inputs_only:
            torch.manual_seed(seed)
            model = module.Model(*module.get_init_inputs())
        torch.manual_seed(seed)
        inputs = module.get_inputs()
    return model, inputs


def context_alive():
    import torch
    try:
        torch.cuda.synchronize()
        return True
    except Exception:  # Any error here means the context is gone.
        return False


def run_problem(path, opts, cached_compile=None):
    """One problem, start to end: the row of results (see docs/kernelbench.md
    for its fields). Raises CudaFault when the GPU context is lost."""
    import torch
    row = {"problem": Path(path).stem, "level": level_of(path), "status": None, "stage_s": {}}
    work = Path(opts.out) / "work" / row["level"] / row["problem"]
    work.mkdir(parents=True, exist_ok=True)
    try:
        _run(path, opts, row, work, cached_compile)
        stage = row.get("stage")
        enter(row, None)
        if stage and row.get("status") != "correct":
            row["stage"] = stage  # Where it stopped.
    except CudaFault:
        raise
    except torch.cuda.OutOfMemoryError as e:
        row.update(status="error", stage=row.get("stage"), reason=f"out of GPU memory: {e}"[:400])
    except Exception as e:  # A row that says what broke, never a lost run.
        if not context_alive():
            raise CudaFault(f"{type(e).__name__}: {e}") from e
        row.update(status=row.get("status") or "error",
                   reason=f"{row.get('stage', 'run')}: {type(e).__name__}: {e}"[:400])
    row.pop("_since", None)
    return row


def enter(row, stage):
    """Moves the row to `stage` (None: done), adding the seconds spent in the
    stage it leaves to its `stage_s`."""
    now = time.perf_counter()
    if row.get("stage"):
        timed = row.setdefault("stage_s", {})
        spent = timed.get(row["stage"], 0) + now - row.pop("_since", now)
        timed[row["stage"]] = round(spent, 3)
    if stage:
        row["stage"], row["_since"] = stage, now


def _run(path, opts, row, work, cached_compile):
    import torch
    from ..runtime import CompiledModule
    module = exec_problem(path)
    row["tf32"] = bool(getattr(module, "ALLOW_TF32", False))
    torch.backends.cuda.matmul.allow_tf32 = row["tf32"]
    torch.backends.cudnn.allow_tf32 = row["tf32"]

    enter(row, "inputs")
    model, inputs = build(module, opts.seed)
    start = time.perf_counter()
    compiled_mlir = import_and_compile(model, inputs, opts, row, work)
    if compiled_mlir is None:
        return
    imported, source, manifest = compiled_mlir
    enter(row, "load")
    try:
        compiled = CompiledModule(imported, manifest)
    except Exception as e:
        if not context_alive():
            raise CudaFault(str(e)) from e
        row.update(status="compile-error", reason=f"loading the kernels: {e}"[:400])
        return
    row["compile_s"] = time.perf_counter() - start
    row["launches"] = sum(1 for s in compiled.function["steps"] if s["kind"] == "launch")

    enter(row, "check")
    if not check(compiled, model, module, inputs, opts, row):
        return
    enter(row, "time")
    with torch.no_grad():
        row["eager_ms"] = time_it(model, inputs, opts)
        row["egg_ms"] = time_it(compiled, inputs, opts)
    if opts.torch_compile:
        time_torch_compile(model, inputs, opts, row, cached_compile)
    if opts.tune:
        tune(path, source, module, model, inputs, opts, row, work)
    if opts.f64:
        enter(row, "f64")
        row["f64"] = f64_torch_check(compiled, model, module, opts, row)
        row["f64_egg_eval"] = f64_check(manifest, source, opts, work)
    enter(row, None)
    row.pop("stage", None)


def import_and_compile(model, inputs, opts, row, work):
    """Import (the egg front end, function `forward`) and compile with the
    expert: (imported, source path, manifest path), or None with the row's
    status and reason set. Needs no GPU."""
    import torch
    enter(row, "import")
    try:
        with torch.no_grad():
            imported = import_module(model, inputs, name="forward")
    except UnsupportedOp as e:
        row.update(status="unsupported", reason=str(e)[:400])
        return None
    except Exception as e:  # torch.export's own refusals, named as they come.
        row.update(status="compile-error", reason=f"import: {type(e).__name__}: {e}"[:400])
        return None
    Path(work).mkdir(parents=True, exist_ok=True)
    source = Path(work) / "forward.mlir"
    source.write_text(allowing_tf32(imported.mlir) if row.get("tf32") else imported.mlir)
    enter(row, "compile")
    try:
        manifest, _ = compile_mlir(source, work, chip=opts.chip, timeout=opts.tool_timeout_s)
    except CompileError as e:
        row.update(status="compile-error", reason=first_error(str(e))[:400])
        return None
    except subprocess.TimeoutExpired:
        row.update(status="timeout", reason=f"egg-opt ran past {opts.tool_timeout_s:g} s")
        return None
    return imported, source, manifest


def time_it(fn, inputs, opts):
    from ..timing import time_ms
    return time_ms(fn, inputs, budget_ms=opts.timing_budget_ms)


def check(compiled, model, module, inputs, opts, row):
    """egg against PyTorch on the problem's inputs, then on fresh ones; sets
    the row's status, largest errors and reason. True when correct."""
    import torch
    worst_abs = worst_rel = 0.0
    for k in range(opts.input_sets):
        args = inputs if k == 0 else build(module, opts.seed + k, inputs_only=True)[1]
        with torch.no_grad():
            want = model(*args)
            try:
                got = compiled(*args)
                torch.cuda.synchronize()
            except Exception as e:
                if not context_alive():
                    raise CudaFault(f"running egg's kernels: {e}") from e
                raise
        verdict = compare(got, want)
        worst_abs = max(worst_abs, verdict["max_abs"] or 0.0)
        worst_rel = max(worst_rel, verdict["max_rel"] or 0.0)
        row.update(max_abs=worst_abs, max_rel=worst_rel, input_sets=k + 1)
        if not verdict["ok"]:
            where = "the problem's inputs" if k == 0 else f"fresh inputs (set {k})"
            reason = f"on {where}: {verdict['reason']}"[:400]
            row["f32_conditioning"] = f32_conditioning(model, args, got, want)
            torch_outside = row["f32_conditioning"].get("torch_outside")
            if torch_outside:
                reason += (f"; PyTorch's own float32 output fails the same check against "
                           f"float64 on {torch_outside} elements (egg: "
                           f"{row['f32_conditioning']['egg_outside']})")
            row.update(status="wrong", reason=reason)
            return False
        del got, want
    row["status"] = "correct"
    return True


def f32_conditioning(model, args, got, want):
    """For a wrong result: PyTorch's own output and egg's, each judged by
    the same check against the model run in float64 on the same inputs.
    Where PyTorch's float32 fails it too, the problem is ill-conditioned in
    float32 (its outputs hang on rounding: batch statistics over two
    values, exponentials of long sums) rather than miscompiled by egg; the
    row stays wrong, as KernelBench's check says."""
    import torch
    from .check import as_list
    try:
        exact = in_float64(model, args)
    except Exception as e:  # Out of memory in float64, an op without a float64 kernel.
        return {"error": f"{type(e).__name__}: {e}"[:200]}
    # Rounded to each output's own type, so that the check's tolerance applies.
    exact = [x.to(w.dtype) if isinstance(w, torch.Tensor) and x.is_floating_point() else x
             for x, w in zip(exact, as_list(want))]
    return {"torch_outside": compare(want, exact)["outside"],
            "egg_outside": compare(got, exact)["outside"]}


def in_float64(model, args):
    """The outputs (a list) of a float64 copy of `model` on `args`, their
    floating tensors widened."""
    import copy
    import torch
    from .check import as_list
    wide = [a.double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a
            for a in args]
    with torch.no_grad():
        return as_list(copy.deepcopy(model).double()(*wide))


def time_torch_compile(model, inputs, opts, row, cached):
    """torch.compile's time, from the cache where it has this problem on this
    GPU and PyTorch, else compiled and timed here."""
    import torch
    row["compile_mode"] = opts.compile_mode
    if cached:
        row["compile_ms"] = cached["compile_ms"]
        row["torch_compile_s"] = cached.get("compile_s")
        row["compile_cached"] = True
        return
    try:
        start = time.perf_counter()
        compiled = torch.compile(model, mode=opts.compile_mode)
        with torch.no_grad():
            compiled(*inputs)
            torch.cuda.synchronize()
            row["torch_compile_s"] = time.perf_counter() - start
            row["compile_ms"] = time_it(compiled, inputs, opts)
    except Exception as e:  # Reported in the row, never hidden.
        if not context_alive():
            raise CudaFault(f"torch.compile: {e}") from e
        row["compile_error"] = f"{type(e).__name__}: {e}"[:300]
    finally:
        torch._dynamo.reset()


def tune(path, source, module, model, inputs, opts, row, work):
    """egg-tune with at most opts.tune candidates a kernel; its winner is
    compiled again from the decisions it gives, checked like the expert's
    kernels and timed here, beside eager."""
    import torch
    from ..runtime import CompiledModule
    enter(row, "tune")
    start = time.perf_counter()
    tuned = work / "tune"
    try:
        run = subprocess.run([find_tool("egg-tune"), str(source), "-o", str(tuned),
                              f"--max-candidates={opts.tune}", "--quiet", f"--chip={opts.chip}"],
                             capture_output=True, text=True, timeout=opts.tool_timeout_s * 4)
    except subprocess.TimeoutExpired:
        row["tune_error"] = "egg-tune ran out of time"
        return
    row["tune_s"] = time.perf_counter() - start
    # egg-tune's warnings (a check it had to change) and errors, kept in
    # the row: its records stay in the run's work folder.
    notes = [line for line in run.stderr.splitlines()
             if "warning" in line or "error" in line]
    if run.returncode != 0 or notes:
        row["tune_log"] = "\n".join(notes or run.stderr.splitlines()[-5:])[-1500:]
    decisions = tuned / f"{source.stem}.decisions.json"
    if not decisions.is_file():
        row["tune_error"] = "egg-tune gave no decisions"
        return
    row["tuned_decisions"] = changed_decisions(work / f"{source.stem}.decisions.json",
                                               decisions)
    manifest, _ = compile_mlir(source, work / "tuned", chip=opts.chip, agent="replay",
                               decisions=decisions, timeout=opts.tool_timeout_s)
    imported = import_module(model, inputs, name="forward")
    compiled = CompiledModule(imported, manifest)
    verdict = {}
    if check(compiled, model, module, inputs, opts, verdict):
        with torch.no_grad():
            row["tuned_ms"] = time_it(compiled, inputs, opts)
    else:
        row["tune_error"] = f"egg-tune's winner is wrong: {verdict.get('reason')}"


def changed_decisions(expert, tuned):
    """The kernels whose structure or tuning egg-tune's winner changed from
    the expert's, as {kernel: "structure tuning"}: what a rule could learn
    from the run (the rest of the records stay in the work folder)."""
    def kernels(path):
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, ValueError):
            return {}
        return {k.get("name"): f"{k.get('structure')} {k.get('tuning')}"
                for k in data.get("kernels", [])}
    before, after = kernels(expert), kernels(tuned)
    return {name: choice for name, choice in after.items() if before.get(name) != choice}


# Relative L2 error against float64 that a correct f32 kernel stays under;
# 16-bit outputs and TF32 products round far more.
F64_TOLERANCE = {"float32": 1e-4, "float64": 1e-10}
F64_TOLERANCE_LOW = 1e-2


def f64_torch_check(compiled, model, module, opts, row):
    """egg's outputs against the PyTorch model run in float64 on the GPU, on
    one more fresh input set: the relative L2 error of each output, against
    a reference that shares nothing with egg's import and costs no CPU
    interpretation at KernelBench's sizes."""
    import torch
    from .check import as_list
    args = build(module, opts.seed + opts.input_sets, inputs_only=True)[1]
    want = in_float64(model, args)
    with torch.no_grad():
        got = as_list(compiled(*args))
    worst, status = 0.0, "ok"
    for g, w in zip(got, want):
        if not w.is_floating_point():
            err = float((g.to(w.device) != w).any())
        else:
            w = w.reshape(-1)
            err = float((g.reshape(-1).double() - w).norm() / w.norm().clamp_min(1e-300))
        tol = F64_TOLERANCE.get(str(g.dtype).replace("torch.", ""), F64_TOLERANCE_LOW)
        if row.get("tf32"):
            tol = F64_TOLERANCE_LOW
        if not err <= (tol if g.is_floating_point() else 0):
            status = "differs"
        worst = max(worst, err)
    return {"status": status, "rel_l2": worst}


def f64_check(manifest, source, opts, work):
    """egg-eval's float64 check of the same kernels on its own inputs (one
    trial, no timing): a second opinion that shares nothing with PyTorch.
    Sources whose reference is too large to interpret are skipped, and say so."""
    out = work / "eval.json"
    out.unlink(missing_ok=True)
    cmd = [find_tool("egg-eval"), str(manifest), f"--source={source}", f"--json={out}",
           "--trials=1", "--timing=false", f"--max-reference-iterations={opts.f64_max_iterations:g}"]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=opts.f64_timeout_s)
    except subprocess.TimeoutExpired:
        return {"status": "skipped", "reason": f"the reference ran past {opts.f64_timeout_s:g} s"}
    try:
        result = json.loads(out.read_text())
    except (OSError, ValueError):
        return {"status": "error", "reason": (r.stdout + r.stderr).strip()[-300:]}
    status = result.get("status")
    reason = result.get("reason", "")
    if status != "ok" and "iterations" in reason:
        return {"status": "skipped", "reason": reason[:300]}
    return {"status": status, "reason": reason[:300]}


def serve(opts, result_fd):
    """The worker process: a task per stdin line, a row per task on result_fd."""
    import torch
    results = os.fdopen(result_fd, "w", buffering=1)
    torch.cuda.init()
    # Who measures: the driver keys PyTorch's cached times by it.
    results.write(json.dumps({"hello": {"gpu": torch.cuda.get_device_name(),
                                        "torch": torch.__version__}}) + "\n")
    for line in sys.stdin:
        task = json.loads(line)
        try:
            row = run_problem(task["path"], opts, task.get("cached_compile"))
        except CudaFault as e:
            row = {"problem": Path(task["path"]).stem, "level": level_of(task["path"]),
                   "status": "fault", "reason": str(e)[:400]}
            results.write(json.dumps(row) + "\n")
            results.flush()
            os._exit(FAULT_EXIT)
        row["gpu"] = torch.cuda.get_device_name()
        row["torch"] = torch.__version__
        row["commit"] = os.environ.get("EGG_COMMIT", "unknown")
        results.write(json.dumps(row) + "\n")
        results.flush()


if __name__ == "__main__":
    serve(Options(**json.loads(sys.argv[1])), int(sys.argv[2]))
