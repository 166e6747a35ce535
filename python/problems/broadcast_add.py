"""KernelBench-format problem: broadcast_add."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x, b):
        return x + b


def get_inputs():
    return [torch.randn(1024, 256), torch.randn(256)]


def get_init_inputs():
    return []
