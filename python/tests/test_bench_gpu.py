"""python -m egg.bench's worker on a GPU: a KernelBench-format problem runs
end to end, and a deliberately wrong translation is caught by the comparison
with PyTorch while egg-eval's float64 check, which only sees the import,
passes it. Skipped without CUDA (CI); scripts/gpu-check.sh runs it."""
import textwrap

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

from egg.bench import worker  # noqa: E402
from egg.frontend import import_module  # noqa: E402

PROBLEM = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.linear = nn.Linear(features, features)

    def forward(self, x):
        return torch.relu(self.linear(x))

def get_inputs():
    return [torch.randn(512, 256)]

def get_init_inputs():
    return [256]
"""


def problem(tmp_path):
    folder = tmp_path / "level1"
    folder.mkdir()
    path = folder / "7_Linear_ReLU.py"
    path.write_text(textwrap.dedent(PROBLEM))
    return path


def options(tmp_path):
    return worker.Options(out=str(tmp_path / "out"), torch_compile=False, timing_budget_ms=50)


def test_problem_runs_end_to_end(tmp_path):
    row = worker.run_problem(problem(tmp_path), options(tmp_path))
    assert row["status"] == "correct", row
    assert row["input_sets"] == 5 and row["max_abs"] < 1e-3
    assert row["egg_ms"] > 0 and row["eager_ms"] > 0
    assert row["f64"]["status"] == "ok" and row["f64"]["rel_l2"] < 1e-5, row["f64"]
    assert row["f64_egg_eval"]["status"] == "ok", row["f64_egg_eval"]


def test_wrong_translation_is_caught(tmp_path, monkeypatch):
    """The import translates relu as sigmoid: egg-eval's reference runs the
    same wrong MLIR and agrees with the kernels; PyTorch's model does not."""
    def mistranslated(model, inputs, name="forward"):
        wrong = torch.nn.Sequential(model.linear, torch.nn.Sigmoid())
        return import_module(wrong, inputs, name=name)

    monkeypatch.setattr(worker, "import_module", mistranslated)
    opts = options(tmp_path)
    row = worker.run_problem(problem(tmp_path), opts)
    assert row["status"] == "wrong", row
    assert "on the problem's inputs" in row["reason"] and "outside atol = rtol = 0.01" in row["reason"]
    manifest = tmp_path / "out" / "work" / "level1" / "7_Linear_ReLU" / "forward.manifest.json"
    source = manifest.with_name("forward.mlir")
    assert worker.f64_check(manifest, source, opts, manifest.parent)["status"] == "ok"
