"""torch.compile(model, backend="egg"): a Dynamo backend.

Each graph Dynamo hands over is imported and compiled with EGG; a graph with
an op EGG does not take (or that fails to compile) runs as PyTorch would,
with one warning naming the reason. Graphs are not split yet: one
unsupported op leaves its whole graph to PyTorch."""
import warnings

from .frontend import UnsupportedOp
from .runtime import compile as egg_compile
from .tools import CompileError


def egg_backend(gm, example_inputs, **options):
    import torch
    real = [x for x in example_inputs if isinstance(x, torch.Tensor)]
    if len(real) != len(example_inputs) or any(not x.is_cuda for x in real):
        warnings.warn("egg backend: non-tensor or CPU inputs; running this graph with PyTorch")
        return gm.forward
    try:
        # Shapes and dtypes are all the importer needs from the examples.
        examples = [torch.empty(x.shape, dtype=x.dtype, device="cpu").normal_() for x in real]
        compiled = egg_compile(gm.cpu(), examples, **options)
    except (UnsupportedOp, CompileError) as e:
        warnings.warn(f"egg backend: {str(e).splitlines()[0]}; running this graph with PyTorch")
        gm.cuda()
        return gm.forward

    def run(*args):
        out = compiled(*args)
        return out if isinstance(out, tuple) else (out,)
    return run


def register():
    """Makes backend="egg" known to torch.compile (done on `import egg`)."""
    try:
        from torch._dynamo import register_backend
    except ImportError:  # No torch, or one without Dynamo.
        return
    from torch._dynamo.backends.registry import _BACKENDS
    if "egg" not in _BACKENDS:
        register_backend(name="egg")(egg_backend)
