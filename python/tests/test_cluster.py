"""egg-tune and egg.bench on a Ray cluster, on the CPU: a local Ray cluster
started here with a few CPU workers and two made-up GPUs. Candidates are
timed by test/Tune/Inputs/fake_eval.py (egg-eval's protocol, times from
each launch's block shape) or estimated by the cost model; egg.bench's
problems run through the stand-in worker. The tools reach the workers in a
bundle shipped through Ray's runtime environment, as on a real cluster."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (scripts/test.sh installs it)")

from egg.bench import cli, driver  # noqa: E402
from egg.cluster import ClusterError, parse_spec  # noqa: E402
from egg.cluster import session as cluster_session  # noqa: E402
from egg.tools import find_tool  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TESTS = Path(__file__).resolve().parent
FAKE_EVAL = ROOT / "test" / "Tune" / "Inputs" / "fake_eval.py"
CHECK_TUNE = ROOT / "test" / "Tune" / "Inputs" / "check_tune.py"
EXAMPLE = ROOT / "examples" / "gemm_bias_relu.mlir"


@pytest.fixture(scope="module")
def cluster():
    """A Ray head on this host with 4 CPUs and 2 GPUs that are not there;
    its address."""
    temp = tempfile.mkdtemp(prefix="ray")
    ray_cli = str(Path(sys.executable).parent / "ray")
    r = subprocess.run([ray_cli, "start", "--head", "--port=0", "--num-cpus=4", "--num-gpus=2",
                        "--include-dashboard=false", "--disable-usage-stats",
                        f"--temp-dir={temp}"], capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    yield Path(temp, "ray_current_cluster").read_text().strip()  # host:port
    subprocess.run([ray_cli, "stop", "--force"], capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    """A tool bundle in build-bundle.sh's layout whose tools log each run to
    a file and then run this build's tools (egg-eval: the stand-in)."""
    folder = tmp_path_factory.mktemp("bundle")
    log = folder / "tool-runs.log"
    tools = {"egg-opt": find_tool("egg-opt"), "egg-translate": find_tool("egg-translate"),
             "egg-eval": str(FAKE_EVAL)}
    archive = folder / "egg-tools.tar.xz"
    with tarfile.open(archive, "w:xz") as tar:
        for name, real in tools.items():
            script = folder / name
            script.write_text(f'#!/bin/sh\necho "$0" >> {log}\nexec {real} "$@"\n')
            script.chmod(0o755)
            tar.add(script, arcname=f"egg-tools/bin/{name}")
    return archive, log


def tune(out, *extra, env=None, check=True, batch=4):
    cmd = [find_tool("egg-tune"), str(EXAMPLE), "-o", str(out), "--agent=search",
           "--max-candidates=8", f"--batch={batch}", "--quiet", *extra]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, EGG_PYTHON=sys.executable, **(env or {})))
    if check:
        log = out / "cluster.log"
        assert r.returncode == 0, r.stderr + (log.read_text(errors="replace") if log.is_file()
                                              else "")
    return r


def statuses(out):
    db = sqlite3.connect(out / "tune.sqlite")
    return [s for (s,) in db.execute("SELECT status FROM candidates ORDER BY id")]


def decisions(out):
    return json.loads((out / "gemm_bias_relu.decisions.json").read_text())


def test_spec_and_missing_ray_are_clear_errors(monkeypatch, tmp_path):
    assert parse_spec("ray:10.0.0.5:6379") == "10.0.0.5:6379"
    assert parse_spec("ray:auto") == "auto"
    with pytest.raises(ClusterError, match="expected ray or ray:ADDRESS"):
        parse_spec("slurm")
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ClusterError, match="pip install"):
        cluster_session.import_ray()
    r = tune(tmp_path / "x", "--cluster=ray", "--cluster-python=/nonexistent/python",
             check=False)
    assert r.returncode == 1 and "cannot start /nonexistent/python" in r.stderr


def test_cluster_timing_matches_a_local_run_and_survives_a_killed_worker(
        tmp_path, cluster, bundle):
    archive, log = bundle
    local = tmp_path / "local"
    tune(local, f"--egg-eval={FAKE_EVAL}", "--evaluator=gpu")
    # The first timing task's worker process dies; Ray runs the task again.
    marks = tmp_path / "faults"
    on_cluster = tmp_path / "cluster"
    r = tune(on_cluster, f"--cluster=ray:{cluster}", f"--bundle={archive}", "--evaluator=gpu",
             env={"EGG_CLUSTER_INJECT_FAULT": f"time:{marks}",
                  "EGG_CLUSTER_ENV": "EGG_CLUSTER_INJECT_FAULT"})
    assert (marks / "time-killed").is_file()
    assert decisions(on_cluster) == decisions(local)
    assert statuses(on_cluster) == statuses(local) and set(statuses(local)) == {"ok"}
    report = json.loads((on_cluster / "report.json").read_text())
    assert not report["estimate"] and report["device"] == "Fake GPU (cc 9.0)"
    assert report["replay_identical"]
    # The workers ran the shipped tools, not this build's.
    runs = log.read_text().splitlines()
    assert any(p.endswith("egg-opt") for p in runs) and any(p.endswith("egg-eval") for p in runs)
    assert all("egg-cluster-" in p for p in runs)


def test_cost_model_run_compiles_on_the_cluster_and_retries_a_killed_compile(
        tmp_path, cluster, bundle):
    archive, _ = bundle
    local = tmp_path / "local"
    tune(local, "--evaluator=model")
    marks = tmp_path / "faults"
    on_cluster = tmp_path / "cluster"
    tune(on_cluster, f"--cluster=ray:{cluster}", f"--bundle={archive}", "--evaluator=model",
         env={"EGG_CLUSTER_INJECT_FAULT": f"compile:{marks}",
              "EGG_CLUSTER_ENV": "EGG_CLUSTER_INJECT_FAULT"})
    assert (marks / "compile-killed").is_file()
    assert decisions(on_cluster) == decisions(local)
    assert statuses(on_cluster) == statuses(local) and set(statuses(local)) == {"estimate"}


def test_a_gpu_fault_is_timed_again_once(tmp_path, cluster, bundle):
    archive, _ = bundle
    out = tmp_path / "faulty"
    # Every third evaluation faults (fake_eval's counter), so most second
    # runs do not.
    tune(out, f"--cluster=ray:{cluster}", f"--bundle={archive}", "--evaluator=gpu", batch=1,
         env={"FAKE_EVAL_MODE": "faulty", "FAKE_EVAL_COUNTER": str(tmp_path / "count"),
              "EGG_CLUSTER_ENV": "FAKE_EVAL_MODE,FAKE_EVAL_COUNTER"})
    db = sqlite3.connect(out / "tune.sqlite")
    rows = db.execute("SELECT status, diagnostics FROM candidates").fetchall()
    again = "timed a second time"
    # Every fault recorded was timed twice; some second runs succeeded.
    assert all(again in d for s, d in rows if s == "fault")
    assert any(again in d for s, d in rows if s == "ok")


def test_a_killed_driver_resumes_from_its_records(tmp_path, cluster, bundle):
    archive, _ = bundle
    out = tmp_path / "out"
    evals = tmp_path / "evals.log"
    env = dict(os.environ, EGG_PYTHON=sys.executable, FAKE_EVAL_LOG=str(evals),
               EGG_CLUSTER_ENV="FAKE_EVAL_LOG")
    cmd = [find_tool("egg-tune"), str(EXAMPLE), "-o", str(out), "--agent=search",
           "--max-candidates=12", "--batch=1", "--quiet", "--evaluator=gpu",
           f"--cluster=ray:{cluster}", f"--bundle={archive}"]
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            n = sqlite3.connect(out / "tune.sqlite").execute(
                "SELECT COUNT(*) FROM candidates").fetchone()[0]
        except sqlite3.Error:
            n = 0
        if n >= 4:
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.1)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "egg-tune ended before it could be killed"
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    check = subprocess.run([sys.executable, str(CHECK_TUNE), "resume", str(out / "tune.sqlite"),
                            str(evals)], capture_output=True, text=True).stdout
    assert "rows: 12 unique: 12" in check
    assert "runs: running done" in check
    assert "re-measured at most one: True" in check


@pytest.fixture
def stand_in(monkeypatch):
    monkeypatch.setattr(driver.Worker, "module", "bench_stand_in_worker")
    monkeypatch.setenv("PYTHONPATH", str(TESTS))
    monkeypatch.setenv("EGG_CLUSTER_ENV", "PYTHONPATH,EGG_CLUSTER_INJECT_FAULT")


def test_bench_spreads_problems_over_the_cluster_and_resumes(
        tmp_path, cluster, bundle, stand_in, monkeypatch):
    archive, _ = bundle
    folder = tmp_path / "level9"
    folder.mkdir()
    for name in ("1_ok", "2_ok", "3_fault", "4_ok"):
        (folder / f"{name}.py").write_text("# a stand-in problem\n")
    marks = tmp_path / "faults"
    monkeypatch.setenv("EGG_CLUSTER_INJECT_FAULT", f"problem:{marks}")
    out = tmp_path / "out"
    args = [str(folder), "--out", str(out), f"--cluster=ray:{cluster}", f"--bundle={archive}"]
    assert cli.main(args) == 0
    assert (marks / "problem-killed").is_file()  # One task's worker died and was retried.
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert {r["problem"]: r["status"] for r in rows} == {
        "1_ok": "correct", "2_ok": "correct", "3_fault": "fault", "4_ok": "correct"}
    fault = next(r for r in rows if r["problem"] == "3_fault")
    assert "run a second time" in fault["reason"]
    assert all(r["node"] for r in rows) and all(r["gpu"] == "Stand-in GPU" for r in rows)
    # Resumed: a second run finds every problem done and runs nothing.
    assert cli.main(args) == 0
    assert (out / "results.jsonl").read_text().count("\n") == 4
