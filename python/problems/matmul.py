"""KernelBench-format problem: matmul."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(256, 512), torch.randn(512, 256)]


def get_init_inputs():
    return []
