"""KernelBench-format problem: matmul_f16."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(256, 256).half(), torch.randn(256, 256).half()]


def get_init_inputs():
    return []
