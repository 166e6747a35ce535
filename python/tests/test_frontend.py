"""The front end on every problem of python/problems (KernelBench format):
the import parses and compiles with egg-opt/egg-translate, and means what
PyTorch means (float64 on both sides, egg-eval's reference interpreter)."""
import glob
import os
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from egg import UnsupportedOp, to_mlir  # noqa: E402
from egg.kernelbench import import_problem, reference_check  # noqa: E402
from egg.tools import compile_mlir  # noqa: E402

PROBLEMS = sorted(glob.glob(str(Path(__file__).resolve().parents[1] / "problems" / "*.py")))


def test_there_are_enough_problems():
    assert len(PROBLEMS) >= 30


@pytest.mark.parametrize("path", PROBLEMS, ids=lambda p: Path(p).stem)
def test_problem_imports_compiles_and_matches(path, tmp_path):
    name, model, inputs, imported = import_problem(path)
    mlir = tmp_path / f"{name}.mlir"
    mlir.write_text(imported.mlir)
    manifest, decisions = compile_mlir(mlir, tmp_path / "out")
    assert manifest.stat().st_size > 0 and decisions.stat().st_size > 0
    error = reference_check(imported, model, inputs, tmp_path / "ref")
    half = any(x.dtype in (torch.float16, torch.bfloat16) for x in inputs)
    assert error < (2e-3 if half else 1e-5), f"{name}: relative L2 error {error}"


def test_unsupported_op_is_named():
    class Sorter(torch.nn.Module):
        def forward(self, x):
            return torch.sort(x, dim=-1).values

    with pytest.raises(UnsupportedOp, match="sort"):
        to_mlir(Sorter(), [torch.randn(8, 8)])


def test_integer_inputs_are_refused():
    class Adder(torch.nn.Module):
        def forward(self, x):
            return x + 1

    with pytest.raises(UnsupportedOp, match="element type"):
        to_mlir(Adder(), [torch.ones(4, dtype=torch.int32)])
