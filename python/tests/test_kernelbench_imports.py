"""Every problem of the shared KernelBench set (../shared/kernelbench, or
$EGG_KERNELBENCH) through the front end on the CPU, at small sizes: the
problem's integer settings of 32 and over are shrunk to 16 + (v mod 16),
which keeps odd extents odd and divisibility by 2, 4, 8 and 16 (groups,
heads). Each problem either raises UnsupportedOp naming the op, or its
import means what PyTorch means (float64 on both sides) and compiles with
egg-opt. Skipped, visibly, where the set is not on this machine."""
import copy
import os
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from egg import UnsupportedOp  # noqa: E402
from egg.frontend import import_module  # noqa: E402
from egg.kernelbench import exec_problem, reference_run  # noqa: E402
from egg.tools import CompileError, compile_mlir  # noqa: E402

ROOT = Path(os.environ.get("EGG_KERNELBENCH",
                           Path(__file__).resolve().parents[2] / ".." / "shared" / "kernelbench"))
PROBLEMS = sorted(ROOT.glob("level*/*.py"))

# Imports that are right but that egg-opt does not compile yet (#49), with
# egg-opt's reason.
KNOWN_COMPILE_ERRORS = {}
# Imports whose float64 result differs from PyTorch's beyond the tolerance:
# open bugs, or problems too ill-conditioned at the test's small sizes for
# float64 rounding, kept visible here.
KNOWN_MISMATCHES = {
    "24_EfficientNetB2": "ill-conditioned at the test's small sizes: its training-mode "
    "batch norms over a batch of 2 make a 1e-15 relative change of the input move the "
    "output by 2e-6 (PyTorch in float64 against itself), so summation order alone "
    "exceeds rtol 1e-5 on some elements with some random weights",
}


def small(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return 16 + value % 16 if value >= 32 else value
    if isinstance(value, (tuple, list)):  # Shapes such as bias_shape.
        return type(value)(small(v) for v in value)
    return value


def shrink(module):
    for name, value in list(vars(module).items()):
        if not name.startswith("_"):
            setattr(module, name, small(value))


@pytest.mark.skipif(not PROBLEMS, reason=f"no KernelBench problems under {ROOT}")
@pytest.mark.parametrize("path", PROBLEMS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_problem_is_refused_by_name_or_imported_right(path, tmp_path):
    try:
        module = exec_problem(path)
    except ImportError as e:  # A package the problem needs (einops).
        pytest.skip(f"the problem needs {e.name}")
    shrink(module)
    torch.manual_seed(0)
    try:
        model = module.Model(*module.get_init_inputs())
        inputs = module.get_inputs()
        with torch.no_grad():
            copy.deepcopy(model)(*inputs)
    except Exception as e:  # Shrinking broke the problem's own arithmetic.
        pytest.skip(f"the problem does not run at small sizes: {str(e)[:100]}")
    try:
        imported = import_module(copy.deepcopy(model), inputs)
    except UnsupportedOp as e:
        assert str(e), "an UnsupportedOp must say what it refuses"
        pytest.xfail(f"unsupported: {str(e)[:200]}")
    # Element by element: an output near zero (a group norm's mean) makes
    # a relative error meaningless.
    try:
        got = reference_run(imported, imported.arg_values, tmp_path / "ref")
    except RuntimeError as e:
        if "too large for the CPU" in str(e):  # Sizes the problem fixes itself.
            pytest.skip("the float64 reference is too large for the CPU")
        raise
    # The model itself in float64, not a copy: a lambda attribute (MiniGPT's
    # mlpf) holds the original's submodules, which a copy would leave f32.
    with torch.no_grad():
        want = model.double()(*[x.double() if isinstance(x, torch.Tensor) and
                                x.is_floating_point() else x for x in inputs])
    want = want if isinstance(want, (tuple, list)) else [want]
    assert len(got) == len(want)
    close = all(np.allclose(g, w.detach().numpy().reshape(-1), rtol=1e-5, atol=1e-7)
                for g, w in zip(got, want))
    if not close and path.stem in KNOWN_MISMATCHES:
        pytest.xfail(f"known mismatch: {KNOWN_MISMATCHES[path.stem]}")
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.detach().numpy().reshape(-1), rtol=1e-5, atol=1e-7)
    source = tmp_path / "forward.mlir"
    source.write_text(imported.mlir)
    try:
        compile_mlir(source, tmp_path / "out", timeout=300)
    except CompileError:
        if path.stem in KNOWN_COMPILE_ERRORS:
            pytest.xfail(f"known compile error: {KNOWN_COMPILE_ERRORS[path.stem]}")
        raise
