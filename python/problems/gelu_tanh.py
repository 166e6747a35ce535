"""KernelBench-format problem: gelu_tanh."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return torch.nn.functional.gelu(x, approximate='tanh')


def get_inputs():
    return [torch.randn(512, 1024)]


def get_init_inputs():
    return []
