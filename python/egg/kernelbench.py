"""KernelBench-format problems: a file defining ``Model(nn.Module)``,
``get_inputs()`` and ``get_init_inputs()``. Loading, importing to MLIR, and
checking the import's meaning on the CPU against PyTorch in float64 (through
egg-eval's float64 reference interpreter, ``--reference-io``)."""
import copy
import importlib.util
import subprocess
from pathlib import Path

from .frontend import import_module
from .tools import find_tool


def exec_problem(path):
    """The problem file run as a module (its Model, get_inputs, ...)."""
    path = Path(path)
    spec = importlib.util.spec_from_file_location(f"egg_problem_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def problem_allows_tf32(path):
    """Whether the problem file sets ``ALLOW_TF32 = True``: its f32 products
    may then run as TF32, in EGG and in the PyTorch baselines alike."""
    return bool(getattr(exec_problem(path), "ALLOW_TF32", False))


def load_problem(path, seed=0):
    """(name, model, inputs) with the model's weights drawn from `seed`."""
    import torch
    path = Path(path)
    module = exec_problem(path)
    torch.manual_seed(seed)
    model = module.Model(*module.get_init_inputs())
    inputs = module.get_inputs()
    return path.stem, model.eval(), inputs


def import_problem(path, seed=0):
    name, model, inputs = load_problem(path, seed)
    return name, model, inputs, import_module(model, inputs, name=name)


def reference_run(imported, arg_values, workdir):
    """Runs the imported MLIR with egg-eval's float64 reference interpreter
    (--reference-io) on `arg_values` (imported.arg_names order); returns the
    results as flat float64 numpy arrays."""
    import numpy as np
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    source = workdir / f"{imported.function}.mlir"
    source.write_text(imported.mlir)
    for i, value in enumerate(arg_values):
        value = value.detach().cpu().double().contiguous()
        value.numpy().astype("<f8").tofile(workdir / f"arg{i}.f64")
    r = subprocess.run([find_tool("egg-eval"), f"--source={source}", f"--reference-io={workdir}"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"egg-eval --reference-io failed: {r.stderr.strip()}")
    return [np.fromfile(workdir / f"result{i}.f64", dtype="<f8")
            for i in range(imported.result_count)]


def reference_check(imported, model, inputs, workdir):
    """Runs the imported MLIR in float64 (egg-eval --reference-io) on the
    same argument values and PyTorch's model in float64; returns the largest
    relative L2 error over the results."""
    import numpy as np
    import torch
    results = reference_run(imported, imported.arg_values, workdir)
    with torch.no_grad():
        expected = copy.deepcopy(model).double()(
            *[x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x
              for x in inputs])
    if isinstance(expected, torch.Tensor):
        expected = [expected]
    if len(results) != len(expected):
        raise RuntimeError(f"{len(results)} results, expected {len(expected)}")
    worst = 0.0
    for i, (got, e) in enumerate(zip(results, expected)):
        want = e.detach().numpy().reshape(-1)
        if got.shape != want.shape:
            raise RuntimeError(f"result {i}: {got.size} values, expected {want.size}")
        worst = max(worst, float(np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30)))
    return worst
