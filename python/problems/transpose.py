"""KernelBench-format problem: transpose."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return x.t().contiguous()


def get_inputs():
    return [torch.randn(512, 256)]


def get_init_inputs():
    return []
