"""egg.compile on a GPU: the compiled callable matches eager PyTorch. Skipped
where CUDA is not available (CI); run on the GPU host."""
import glob
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import egg  # noqa: E402
from egg.kernelbench import load_problem  # noqa: E402

PROBLEMS = sorted(glob.glob(str(Path(__file__).resolve().parents[1] / "problems" / "*.py")))


@pytest.mark.parametrize("path", PROBLEMS, ids=lambda p: Path(p).stem)
def test_compiled_module_matches_eager(path, tmp_path):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    name, model, inputs = load_problem(path)
    compiled = egg.compile(model, inputs, workdir=tmp_path)
    with torch.no_grad():
        want = model.cuda()(*[x.cuda() for x in inputs])
    fresh = [torch.randn_like(x) for x in inputs]  # Not the example values.
    got = compiled(*[x.cuda() for x in inputs])
    half = want.dtype in (torch.float16, torch.bfloat16)
    tol = 2e-2 if half else 1e-4
    err = ((got.float() - want.float()).norm() / want.float().norm()).item()
    assert err < tol, f"{name}: relative L2 error {err}"
    with torch.no_grad():
        want2 = model(*[x.cuda() for x in fresh])
    got2 = compiled(*[x.cuda() for x in fresh])
    err2 = ((got2.float() - want2.float()).norm() / want2.float().norm()).item()
    assert err2 < tol, f"{name}: relative L2 error {err2} on fresh inputs"

