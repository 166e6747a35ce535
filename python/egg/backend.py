"""torch.compile(model, backend="egg"): a Dynamo backend.

Each graph Dynamo hands over is exported to core ATen (as the importer sees
it) and split with torch.fx's CapabilityBasedPartitioner: the importer
decides node by node (frontend.check_node), connected runs of nodes it takes
become partitions, and each partition that does real work (not only views
or tuple elements) is compiled with EGG; the rest runs in PyTorch. A graph
EGG takes whole is one partition, one EGG compile. A partition that fails
to import or compile runs in PyTorch after one warning naming the reason.
Graphs with CPU or non-tensor inputs run in PyTorch, with a warning."""
import warnings

import torch
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupport

from .frontend import UnsupportedOp, check_node, decompose
from .runtime import compile as egg_compile
from .tools import CompileError

PREFIX = "egg_"  # Names of the partition submodules: egg_0, egg_1, ...


class EggSupport(OperatorSupport):
    """What the importer takes, node by node; remembers its answers."""

    def __init__(self):
        super().__init__()
        self.answers = {}

    def check(self, node):
        if node not in self.answers:
            self.answers[node] = (check_node(node) if node.op == "call_function"
                                  else (f"a {node.op} node", False))
        return self.answers[node]

    def is_node_supported(self, submodules, node):
        return self.check(node)[0] is None


def split(model, example_inputs):
    """Exports `model` (an nn.Module or Dynamo's GraphModule) to core ATen and
    fuses the nodes EGG takes into submodules egg_0, egg_1, ... Returns the
    split GraphModule (same inputs and outputs as `model`) and the names of
    its EGG submodules; everything else in it runs in PyTorch."""
    with torch.no_grad():
        ep = decompose(torch.export.export(model, tuple(example_inputs)))
    gm = ep.module()
    support = EggSupport()
    # Single nodes are allowed (one softmax between two PyTorch ops is worth
    # a kernel); partitions that only move views or tuple elements are not.
    partitioner = CapabilityBasedPartitioner(gm, support, allows_single_node_partition=True)
    partitions = [p for p in partitioner.propose_partitions()
                  if any(support.check(n)[1] for n in p.nodes)]
    fused = partitioner.fuse_partitions(partitions, prefix=PREFIX)
    names = [n.target for n in fused.graph.nodes
             if n.op == "call_module" and n.target.startswith(PREFIX)]
    return fused, names


class _EggPartition(torch.nn.Module):
    """Stands in for a partition submodule: runs its EGG kernels."""

    def __init__(self, compiled):
        super().__init__()
        self.compiled = compiled

    def forward(self, *args):
        return self.compiled(*args)


def compile_partitions(fused, names, **options):
    """Compiles each named submodule of `fused` with EGG and puts the result
    in its place; one that fails stays in PyTorch, with a warning. Returns
    the names compiled."""
    compiled = []
    for name in names:
        sub = getattr(fused, name)
        # Shapes and dtypes are all the importer needs from the examples.
        examples = [torch.empty(n.meta["val"].shape, dtype=n.meta["val"].dtype).normal_()
                    for n in sub.graph.nodes if n.op == "placeholder"]
        try:
            setattr(fused, name, _EggPartition(egg_compile(sub, examples, **options)))
            compiled.append(name)
        except (UnsupportedOp, CompileError) as e:
            warnings.warn(f"egg backend: {str(e).splitlines()[0]}; running {name} with PyTorch")
    return compiled


def egg_backend(gm, example_inputs, options=None, mode=None, **kwargs):
    """Dynamo's entry point. torch.compile(..., options={...}) hands its
    options over as one dict: they are egg.compile's keywords (`tune`,
    `tune_db`, `agent`, `chip`, ...); `mode` is torch.compile's and has no
    meaning here."""
    options = {**(options or {}), **kwargs}
    real = [x for x in example_inputs if isinstance(x, torch.Tensor)]
    if len(real) != len(example_inputs) or any(not x.is_cuda for x in real):
        warnings.warn("egg backend: non-tensor or CPU inputs; running this graph with PyTorch")
        return gm.forward
    fused, names = split(gm, example_inputs)
    # With nothing for EGG, Dynamo's own graph is the cheaper one to run.
    return fused.forward if compile_partitions(fused, names, **options) else gm.forward


def register():
    """Makes backend="egg" known to torch.compile (done on `import egg`)."""
    try:
        from torch._dynamo import register_backend
    except ImportError:  # A torch without Dynamo.
        return
    from torch._dynamo.backends.registry import _BACKENDS
    if "egg" not in _BACKENDS:
        register_backend(name="egg")(egg_backend)
