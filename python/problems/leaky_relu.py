"""KernelBench-format problem: leaky_relu."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return torch.nn.functional.leaky_relu(x, 0.1)


def get_inputs():
    return [torch.randn(512, 512)]


def get_init_inputs():
    return []
