"""egg.compile(..., tune=N) without a GPU: egg-tune ranks the candidates
with its cost model, the best decisions are replayed into the manifest, and
a second compile of the same model finds every candidate in the persistent
records (no measurement at all). On a GPU host the same path measures."""
import json
import warnings

import pytest

torch = pytest.importorskip("torch")

from egg.backend import egg_backend  # noqa: E402
from egg.frontend import import_module  # noqa: E402
from egg.runtime import compile_imported  # noqa: E402


def test_tuned_compile_replays_the_best_and_reuses_its_records(tmp_path):
    model = torch.nn.Sequential(torch.nn.Linear(256, 128), torch.nn.ReLU())
    inputs = [torch.randn(64, 256)]
    imported = import_module(model, inputs, name="forward")
    db = tmp_path / "records" / "tune.sqlite"
    manifest, first = compile_imported(imported, tmp_path / "a", tune=4, tune_db=db,
                                       tune_evaluator="model")
    assert manifest.is_file()
    assert first.measured > 0 and first.from_records == 0 and first.failed == 0, first.summary
    # The compiled kernels carry egg-tune's best decisions.
    best = json.loads(first.decisions.read_text())["kernels"]
    compiled = json.loads((tmp_path / "a" / "forward.decisions.json").read_text())["kernels"]
    assert [k["tuning"] for k in compiled] == [k["tuning"] for k in best]

    again, second = compile_imported(imported, tmp_path / "b", tune=4, tune_db=db,
                                     tune_evaluator="model")
    assert second.measured == 0 and second.from_records == first.measured, second.summary
    recompiled = json.loads((tmp_path / "b" / "forward.decisions.json").read_text())["kernels"]
    assert [k["tuning"] for k in recompiled] == [k["tuning"] for k in compiled]


def test_backend_takes_torch_compiles_options_dict():
    """torch.compile(model, backend="egg", options={"tune": 8}) passes the
    dict as one keyword; CPU inputs run in PyTorch, with a warning."""
    gm = torch.fx.symbolic_trace(torch.nn.ReLU())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        forward = egg_backend(gm, [torch.randn(4)], options={"tune": 8}, mode="max-autotune")
    assert forward == gm.forward
    assert any("CPU inputs" in str(w.message) for w in caught)
