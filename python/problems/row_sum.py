"""KernelBench-format problem: row_sum."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return x.sum(dim=1)


def get_inputs():
    return [torch.randn(1024, 512)]


def get_init_inputs():
    return []
