"""KernelBench-format problem: bmm."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, a, b):
        return torch.bmm(a, b)


def get_inputs():
    return [torch.randn(8, 128, 64), torch.randn(8, 64, 128)]


def get_init_inputs():
    return []
