"""What runs on the workers. Plain functions: session.remote() wraps them as
Ray tasks with their resources (compiling holds a CPU, timing a GPU)."""
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from .worker_env import inject_fault, use_shipped_tools


def node():
    try:
        import ray
        return ray.get_runtime_context().get_node_id()
    except Exception:  # Outside a task (the unit tests call these directly).
        return ""


def compile_candidate(source, source_name, decisions, pipeline, timeout):
    """egg-opt with the decisions replayed, then egg-translate to a manifest:
    {ok, diagnostics, manifest, node, tools}."""
    inject_fault("compile")
    tools = use_shipped_tools()
    from ..tools import CompileError, run_pipeline
    result = {"ok": False, "diagnostics": "", "manifest": "", "node": node(), "tools": tools}
    with tempfile.TemporaryDirectory(prefix="egg-compile-") as work:
        work = Path(work)
        src = work / source_name
        src.write_text(source)
        (work / "decisions.json").write_text(decisions)
        options = " ".join(f"{k}={v}" for k, v in pipeline.items() if v != "")
        options += f" agent=replay decisions={work / 'decisions.json'}"
        try:
            manifest, result["diagnostics"] = run_pipeline(src, work / "out", options, timeout)
        except CompileError as e:
            result["diagnostics"] = str(e)
            return result
        except subprocess.TimeoutExpired as e:
            result["diagnostics"] = f"{Path(e.cmd[0]).name} ran past {timeout:g} s"
            return result
        except FileNotFoundError as e:
            result["diagnostics"] = str(e)
            return result
        result["manifest"] = manifest.read_text()
        result["ok"] = True
        return result


def run_limited(cmd, timeout, log_path):
    """Runs `cmd` in a session of its own, killed with its children after
    `timeout` s: (exit status, timed out). A signal gives -signum."""
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            return proc.wait(timeout=timeout), False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return proc.returncode, True


def time_candidate(source, source_name, compiled, eval_tool, eval_args, timeout):
    """egg-eval on the candidate's manifest, on the GPU this task holds:
    {rc, timed_out, crashed, result (egg-eval's JSON text or None), log,
    node, seconds}. A compile that failed passes through untouched."""
    if not compiled.get("ok"):
        return {"skipped": True, "node": node()}
    inject_fault("time")
    use_shipped_tools()
    from ..tools import find_tool
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="egg-time-") as work:
        work = Path(work)
        src = work / source_name
        src.write_text(source)
        manifest = work / "manifest.json"
        manifest.write_text(compiled["manifest"])
        out = work / "eval.json"
        try:
            tool = eval_tool or find_tool("egg-eval")
        except FileNotFoundError as e:
            return {"rc": -1, "timed_out": False, "crashed": False, "result": None,
                    "log": str(e), "node": node(), "seconds": 0.0}
        rc, timed_out = run_limited([tool, str(manifest), f"--source={src}", f"--json={out}",
                                     *eval_args], timeout, work / "eval.log")
        log = (work / "eval.log").read_text(errors="replace")[-2000:]
        result = out.read_text() if out.is_file() else None
        return {"rc": rc, "timed_out": timed_out, "crashed": rc < 0 and not timed_out,
                "result": result, "log": log, "node": node(),
                "seconds": time.monotonic() - start}


def device_info(eval_tool):
    """egg-eval --device-info on a GPU of the cluster: its JSON text, or
    None where it sees no GPU."""
    use_shipped_tools()
    from ..tools import find_tool
    try:
        r = subprocess.run([eval_tool or find_tool("egg-eval"), "--device-info"],
                           capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout if r.returncode == 0 else None


def bench_problem(key, source, opts, compile_entries, timeout, worker_module):
    """One KernelBench problem through egg.bench's worker process, on the
    GPU this task holds: its result row, with the node it ran on."""
    inject_fault("problem")
    use_shipped_tools()
    from ..bench import driver
    from ..bench.store import CompileCache
    from ..bench.worker import Options
    level, stem = key.split("/", 1)
    with tempfile.TemporaryDirectory(prefix="egg-bench-") as work:
        path = Path(work) / level / f"{stem}.py"
        path.parent.mkdir(parents=True)
        path.write_text(source)
        options = Options(**dict(opts, out=str(Path(work) / "out")))
        Path(options.out).mkdir()
        gpu = os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0]
        worker = driver.Worker(gpu, options, options.out)
        worker.module = worker_module
        try:
            worker.start()
            cached = compile_entries.get(CompileCache.key(path, worker.identity["gpu"],
                                                          worker.identity["torch"],
                                                          options.compile_mode))
            row = worker.run(path, cached, timeout)
            row.setdefault("gpu", worker.identity["gpu"])
            row.setdefault("torch", worker.identity["torch"])
        finally:
            worker.stop()
    row["node"] = node()
    return row
