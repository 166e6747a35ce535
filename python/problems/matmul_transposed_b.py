"""KernelBench-format problem: matmul_transposed_b."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, a, b):
        return a @ b.t()


def get_inputs():
    return [torch.randn(256, 384), torch.randn(128, 384)]


def get_init_inputs():
    return []
