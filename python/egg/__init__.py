"""EGG from Python: a PyTorch front end that turns an nn.Module and example
inputs into linalg-on-tensors MLIR for egg-opt, and a benchmark runner on the
KernelBench problem format (``python -m egg.bench``). See python/README.md."""

from .frontend import UnsupportedOp, import_module, to_mlir  # noqa: F401
from .runtime import compile  # noqa: F401
from .tools import compile_mlir, find_tool  # noqa: F401

try:  # torch.compile(backend="egg") where PyTorch is installed.
    from .backend import register as _register_backend
    _register_backend()
except ImportError:
    pass
