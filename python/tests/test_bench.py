"""python -m egg.bench on the CPU: KernelBench-named files import and compile,
the check's tolerances follow each output's type, a wrong result says
whether PyTorch's own float32 fails the check too, the summary counts every
problem that is not correct as not fast, and the driver survives problems
that hang, crash or fault and resumes where a run stopped (a stand-in worker
plays the GPU side)."""
import json
import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from egg.bench import cli, driver, report  # noqa: E402
from egg.bench.check import compare, tolerance  # noqa: E402
from egg.bench.store import CompileCache, Results  # noqa: E402
from egg.bench.worker import (Options, changed_decisions, f32_conditioning,  # noqa: E402
                              import_and_compile)
from egg.kernelbench import exec_problem  # noqa: E402

RELU = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)

def get_inputs():
    return [torch.rand(16, 64)]

def get_init_inputs():
    return []
"""

SORT = RELU.replace("torch.relu(x)", "torch.sort(x, dim=1)[0]")


def write_problem(folder, name, text):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def prepare(path, tmp_path):
    module = exec_problem(path)
    model, inputs = module.Model(*module.get_init_inputs()), module.get_inputs()
    row = {}
    return import_and_compile(model, inputs, Options(out=str(tmp_path)), row, tmp_path / "work"), row


def test_kernelbench_named_file_imports_and_compiles(tmp_path):
    # KernelBench's file names start with a digit: no valid MLIR symbol.
    path = write_problem(tmp_path / "level1", "19_ReLU.py", RELU)
    compiled, row = prepare(path, tmp_path)
    assert compiled is not None, row
    imported, source, manifest = compiled
    assert "func.func @forward(" in source.read_text()
    functions = json.loads(Path(manifest).read_text())["functions"]
    assert [f["name"] for f in functions] == ["forward"]


def test_unsupported_op_is_named(tmp_path):
    path = write_problem(tmp_path / "level1", "3_Sort.py", SORT)
    compiled, row = prepare(path, tmp_path)
    assert compiled is None
    assert row["status"] == "unsupported"
    # The op first, then the user's line that made it.
    assert row["reason"].startswith("aten.sort")
    assert "3_Sort.py:7 `return torch.sort(x, dim=1)[0]`" in row["reason"]


def test_tolerances_follow_each_output_type():
    assert tolerance(torch.float32) == 1e-2
    assert tolerance(torch.bfloat16) == 2e-2
    assert tolerance(torch.int64) == 0.0
    want = torch.linspace(-4, 4, 1000)
    assert compare(want + 0.005, want)["ok"]
    wrong = want.clone()
    wrong[500] += 1.0
    v = compare(wrong, want)
    assert not v["ok"] and "1 of 1000 elements" in v["reason"] and v["max_abs"] == pytest.approx(1.0)
    # An f32 output and a bf16 output of one function: each its own tolerance.
    w16 = torch.linspace(1, 2, 64, dtype=torch.bfloat16)
    g16 = (w16.float() * 1.015).bfloat16()
    assert compare([want, g16], [want, w16])["ok"]
    assert not compare([want * 1.015, g16], [want, w16])["ok"]
    # Indices exact; shapes, types and NaN where PyTorch has a number refused.
    idx = torch.arange(10)
    assert compare(idx, idx)["ok"] and not compare(idx + 1, idx)["ok"]
    assert "shape" in compare(want[:10], want)["reason"]
    assert "torch.float64" in compare(want.double(), want)["reason"]
    nan = want.clone()
    nan[3] = float("nan")
    assert not compare(nan, want)["ok"]
    assert compare(torch.tensor([float("inf")]), torch.tensor([float("inf")]))["ok"]


def test_a_wrong_result_says_whether_float32_itself_fails_the_check():
    class Cancels(nn.Module):
        """(x + 2^26) - 2^26: float32 keeps none of x's bits below 8, float64 all."""
        def forward(self, x):
            return (x + 67108864.0) - 67108864.0

    model, x = Cancels(), torch.linspace(-3, 3, 100)
    want = model(x)
    v = f32_conditioning(model, [x], want + 1.0, want)
    assert v["torch_outside"] > 90 and v["egg_outside"] > 90
    # A well-conditioned function: PyTorch's float32 passes, egg's error is egg's.
    v = f32_conditioning(nn.Tanh(), [x], torch.tanh(x) + 1.0, torch.tanh(x))
    assert v == {"torch_outside": 0, "egg_outside": 100}


def test_summary_counts_problems_that_are_not_correct_as_not_fast():
    rows = [
        {"problem": "1_A", "level": "level1", "status": "correct", "egg_ms": 1.0, "eager_ms": 3.0,
         "compile_ms": 1.5},
        {"problem": "2_B", "level": "level1", "status": "correct", "egg_ms": 2.0, "eager_ms": 1.0,
         "compile_ms": 1.0},
        {"problem": "3_C", "level": "level1", "status": "unsupported", "reason": "aten.sort.default"},
        {"problem": "4_D", "level": "level2", "status": None},
    ]
    s = report.summarize(rows)
    assert s["problems"] == 4 and s["correct"] == 2
    assert s["fast_0_eager"] == 0.5 and s["fast_1_eager"] == 0.25 and s["fast_2_eager"] == 0.25
    assert s["fast_1_compile"] == 0.25
    assert s["geomean_eager_correct"] == pytest.approx((3.0 * 0.5) ** 0.5)
    assert s["geomean_eager_all"] == pytest.approx((3.0 * 0.5) ** 0.25)
    assert s["statuses"] == {"correct": 2, "unsupported": 1, "not run": 1}
    text = report.markdown(rows, {"command": "`python -m egg.bench x`"})
    assert "| 3_C | unsupported |" in text and "| 4_D | not run |" in text
    assert "| aten.sort.default | 1 |" in text
    assert "| 1_A | correct | - | 1.0000 | 3.0000 | 1.5000 | 3.00x | 1.50x |" in text
    assert "| 3_C | unsupported |" in text and "| - | aten.sort.default |" in text


@pytest.fixture
def stand_in(monkeypatch):
    tests = str(Path(__file__).resolve().parent)
    monkeypatch.setattr(driver.Worker, "module", "bench_stand_in_worker")
    monkeypatch.setenv("PYTHONPATH", tests + ":" + ":".join(sys.path))


def test_driver_survives_hangs_crashes_and_faults_and_resumes(tmp_path, stand_in):
    folder = tmp_path / "level9"
    names = ["1_ok", "2_hang", "3_crash", "4_fault", "5_ok"]
    paths = [write_problem(folder, f"{n}.py", RELU) for n in names]
    out = tmp_path / "out"
    opts = Options(out=str(out))
    cache = CompileCache(out / "cache.json")
    left = driver.run(paths, opts, Results(out), cache, ["0"], 0, problem_timeout=3)
    assert left == []
    rows = Results(out).rows
    assert {k: r["status"] for k, r in rows.items()} == {
        "level9/1_ok": "correct", "level9/2_hang": "timeout", "level9/3_crash": "fault",
        "level9/4_fault": "fault", "level9/5_ok": "correct"}
    assert "simulated crash" in rows["level9/3_crash"]["reason"]
    # torch.compile's times were cached by problem, GPU and PyTorch version.
    assert len(json.loads((out / "cache.json").read_text())) == 1  # Both ok files are alike.
    # A second run resumes: nothing left to run, unless asked to run timeouts again.
    lines = (out / "results.jsonl").read_text().count("\n")
    driver.run(paths, opts, Results(out), cache, ["0"], 0, problem_timeout=3)
    assert (out / "results.jsonl").read_text().count("\n") == lines
    driver.run(paths, opts, Results(out), cache, ["0"], 0, problem_timeout=1, rerun=("timeout",))
    assert (out / "results.jsonl").read_text().count("\n") == lines + 1


def test_budget_leaves_the_rest_for_a_later_run(tmp_path, stand_in):
    paths = [write_problem(tmp_path / "level9", f"{i}_ok.py", RELU) for i in range(3)]
    out = tmp_path / "out"
    left = driver.run(paths, Options(out=str(out)), Results(out), CompileCache(None), ["0"],
                      1e-9, problem_timeout=30)
    assert len(left) == 3
    assert Results(out).rows == {}


def test_cli_reports_every_problem_asked_for(tmp_path, stand_in, capsys):
    paths = [write_problem(tmp_path / "level9", n, RELU) for n in ("10_ok.py", "2_ok.py")]
    out = tmp_path / "out"
    assert cli.main([str(tmp_path / "level9"), "--out", str(out), "--gpus", "1"]) == 0
    bench = json.loads((out / "bench.json").read_text())
    assert [r["problem"] for r in bench["rows"]] == ["2_ok", "10_ok"]  # By number.
    assert bench["summary"]["fast_1_eager"] == 1.0
    text = (out / "kernelbench.md").read_text()
    assert "python -m egg.bench" in text and "## level9" in text
    assert len(paths) == 2


def test_compile_error_reason_is_the_first_error_line():
    from egg.bench.worker import first_error
    diagnostics = ("x.mlir:9:9: error: a kernel needs a per-thread buffer\n"
                   "x.mlir:9:9: note: see current operation:\n"
                   "%0 = \"linalg.fill\"(%c) : (f32) -> tensor<4xf32>\n")
    assert first_error(diagnostics) == ("x.mlir:9:9: error: a kernel needs a "
                                        "per-thread buffer")
    assert first_error("egg-opt crashed") == "egg-opt crashed"


def test_tuned_decisions_keep_only_the_kernels_the_tuner_changed(tmp_path):
    def write(name, kernels):
        path = tmp_path / name
        path.write_text(json.dumps({"kernels": [
            {"name": n, "structure": s, "tuning": t} for n, s, t in kernels]}))
        return path
    expert = write("expert.json", [("k0", "#egg.structure<conv_implicit_gemm>", "#egg.tuning<a>"),
                                   ("k1", "#egg.structure<elementwise_flat>", "#egg.tuning<b>")])
    tuned = write("tuned.json", [("k0", "#egg.structure<conv_direct>", "#egg.tuning<c>"),
                                 ("k1", "#egg.structure<elementwise_flat>", "#egg.tuning<b>")])
    assert changed_decisions(expert, tuned) == {
        "k0": "#egg.structure<conv_direct> #egg.tuning<c>"}
    assert changed_decisions(tmp_path / "missing.json", tuned)["k1"].endswith("<b>")
