"""``python -m egg.bench``: KernelBench-format problems through EGG, judged
the KernelBench way (egg's output against the PyTorch model's on the GPU),
timed beside PyTorch eager and torch.compile in one process. See cli.py for
the options and docs/kernelbench.md for the method and the latest table."""


def main(argv=None):
    # Imported here, so that `python -m egg.bench.worker` does not load the
    # worker twice (once through the package, once as __main__).
    from .cli import main as run
    return run(argv)
