"""torch.compile(model, backend="egg") and its graph splitting.

On the CPU: which nodes of a mixed graph land in EGG partitions and which
stay in PyTorch; the partitions imported and compiled with the real tools
(egg-opt, egg-translate) and, in place of the CUDA runtime, run by egg-eval's
float64 reference interpreter, stitched back with the PyTorch part. On a GPU
(skipped without CUDA): torch.compile itself against eager."""
import json
import warnings
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import egg.runtime  # noqa: E402
from egg import backend  # noqa: E402
from egg.frontend import check_node  # noqa: E402
from egg.kernelbench import reference_run  # noqa: E402
from egg.tools import CompileError  # noqa: E402

gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

# Ops the front end does not take, between two runs of ops it does.
MIDDLES = {"sort": lambda y: torch.sort(y, dim=-1).values,
           "atan": lambda y: torch.atan(y)}


class Mixed(torch.nn.Module):
    """linear -> relu -> `middle` -> softmax."""

    def __init__(self, middle):
        super().__init__()
        self.fc = torch.nn.Linear(32, 32)
        self.middle = middle

    def forward(self, x):
        y = torch.relu(self.fc(x))
        return torch.softmax(MIDDLES[self.middle](y), dim=-1)


class Block(torch.nn.Module):
    """All of it taken by EGG."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(128, 128)

    def forward(self, x):
        return torch.nn.functional.gelu(self.fc(x)) + x


def egg_warnings(caught):
    """The backend's own warnings (PyTorch may add deprecation warnings)."""
    return [str(w.message) for w in caught if str(w.message).startswith("egg backend")]


def calls(gm):
    """The ops a graph module calls itself (not through submodules), sorted."""
    return sorted(n.target.__name__ for n in gm.graph.nodes if n.op == "call_function")


def test_check_node_asks_the_importer():
    model = Mixed("sort").eval()
    ep = torch.export.export(model, (torch.randn(8, 32),)).run_decompositions()
    answers = {n.target.__name__: check_node(n) for n in ep.graph.nodes if n.op == "call_function"}
    assert answers["addmm.default"] == (None, True)
    assert answers["relu.default"] == (None, True)
    assert answers["_softmax.default"] == (None, True)
    assert answers["permute.default"] == (None, False)  # A view: no work of its own.
    assert "sort" in answers["sort.default"][0]
    assert answers["getitem"][0] is not None  # An element of the sort.


@pytest.mark.parametrize("middle", MIDDLES)
def test_split_leaves_the_unsupported_op_to_pytorch(middle):
    model = Mixed(middle).eval()
    x = torch.randn(8, 32)
    fused, names = backend.split(model, [x])
    assert len(names) == 2
    first, second = (getattr(fused, n) for n in names)
    assert calls(first) == ["addmm.default", "permute.default", "relu.default"]
    assert calls(second) == ["_softmax.default"]
    left = {"sort": ["getitem", "sort.default"], "atan": ["atan.default"]}[middle]
    assert calls(fused) == left  # In PyTorch: the op and its tuple element.
    with torch.no_grad():  # Partitions still PyTorch here: the stitching alone.
        torch.testing.assert_close(fused(x), model(x))


def test_whole_graph_is_one_partition():
    fused, names = backend.split(Block().eval(), [torch.randn(4, 128)])
    assert len(names) == 1
    assert calls(fused) == []
    assert "addmm.default" in calls(getattr(fused, names[0]))


def test_views_alone_stay_in_pytorch():
    class Views(torch.nn.Module):
        def forward(self, x):
            return torch.atan(torch.sort(x, dim=-1).values.t())

    fused, names = backend.split(Views(), [torch.randn(8, 16)])
    assert names == []
    assert "permute.default" in calls(fused)


class ReferenceModule:
    """egg.runtime.CompiledModule's stand-in without a GPU: the same manifest
    gives the results' shapes and types, egg-eval's float64 reference
    interpreter runs the imported MLIR in place of the PTX."""
    runs = []

    def __init__(self, imported, manifest_path):
        self.imported, self.work = imported, Path(manifest_path).parent
        function = json.loads(Path(manifest_path).read_text())["functions"][0]
        self.outputs = sorted((b for b in function["buffers"] if b["role"] == "output"),
                              key=lambda b: b["arg"])

    def __call__(self, *user_inputs):
        ReferenceModule.runs.append(self.imported.mlir)
        lifted = self.imported.arg_values[:self.imported.num_lifted]
        results = reference_run(self.imported, lifted + list(user_inputs), self.work / "ref")
        outs = [torch.from_numpy(r).reshape(b["shape"]).to(
                    getattr(torch, egg.runtime._TORCH_DTYPES[b["element_type"]]))
                for r, b in zip(results, self.outputs)]
        return outs[0] if len(outs) == 1 else tuple(outs)


@pytest.fixture
def on_cpu(monkeypatch):
    """egg.compile with its real import and compile, run by ReferenceModule."""
    ReferenceModule.runs = []
    monkeypatch.setattr(egg.runtime, "CompiledModule", ReferenceModule)
    return ReferenceModule.runs


@pytest.mark.parametrize("middle", MIDDLES)
def test_partitions_compile_and_run_with_egg(middle, on_cpu):
    model = Mixed(middle).eval()
    x = torch.randn(8, 32)
    fused, names = backend.split(model, [x])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert backend.compile_partitions(fused, names) == names
    assert egg_warnings(caught) == []  # No partition fell back.
    with torch.no_grad():
        got, want = fused(x), model(x)
    assert len(on_cpu) == 2 and "linalg.softmax" in on_cpu[1]
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


def test_a_partition_that_fails_runs_in_pytorch(on_cpu, monkeypatch):
    real = egg.runtime.compile_mlir

    def refuse_softmax(source, *args, **kwargs):
        if "linalg.softmax" in Path(source).read_text():
            raise CompileError("egg-opt: softmax refused for this test\nmore diagnostics")
        return real(source, *args, **kwargs)
    monkeypatch.setattr(egg.runtime, "compile_mlir", refuse_softmax)
    model = Mixed("atan").eval()
    x = torch.randn(8, 32)
    fused, names = backend.split(model, [x])
    with pytest.warns(UserWarning) as caught:
        compiled = backend.compile_partitions(fused, names)
    assert egg_warnings(caught) == [
        f"egg backend: egg-opt: softmax refused for this test; running {names[1]} with PyTorch"]
    assert compiled == names[:1]
    assert isinstance(getattr(fused, names[1]), torch.fx.GraphModule)
    with torch.no_grad():
        got, want = fused(x), model(x)
    assert len(on_cpu) == 1  # Only the linear + relu partition ran on EGG.
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


def test_cpu_inputs_run_with_pytorch():
    torch._dynamo.reset()
    model = Mixed("atan").eval()
    x = torch.randn(8, 32)
    with torch.no_grad(), pytest.warns(UserWarning, match="egg backend: non-tensor or CPU inputs"):
        got = torch.compile(model, backend="egg")(x)
        torch.testing.assert_close(got, model(x))


# -- on a GPU ------------------------------------------------------------------

def compile_and_compare(model, x, monkeypatch):
    """torch.compile(backend="egg") against eager: returns the number of EGG
    compiles and of EGG partition runs; fails on any egg backend warning."""
    torch._dynamo.reset()
    torch.backends.cuda.matmul.allow_tf32 = False
    compiles, runs = [], []
    real_compile, real_forward = backend.egg_compile, backend._EggPartition.forward
    monkeypatch.setattr(backend, "egg_compile",
                        lambda *a, **k: compiles.append(1) or real_compile(*a, **k))
    monkeypatch.setattr(backend._EggPartition, "forward",
                        lambda self, *a: runs.append(1) or real_forward(self, *a))
    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        want = model(x)
        got = torch.compile(model, backend="egg")(x)
    assert egg_warnings(caught) == []
    err = ((got - want).norm() / want.norm()).item()
    assert err < 1e-4, err
    return len(compiles), len(runs)


@gpu
def test_torch_compile_whole_graph(monkeypatch):
    model = Block().cuda().eval()
    assert compile_and_compare(model, torch.randn(32, 128, device="cuda"), monkeypatch) == (1, 1)


@gpu
@pytest.mark.parametrize("middle", MIDDLES)
def test_torch_compile_splits_around_unsupported_ops(middle, monkeypatch):
    model = Mixed(middle).cuda().eval()
    assert compile_and_compare(model, torch.randn(64, 32, device="cuda"), monkeypatch) == (2, 2)
