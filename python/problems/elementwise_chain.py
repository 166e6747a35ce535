"""KernelBench-format problem: elementwise_chain."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x, y):
        return torch.tanh(x * 2 + 1) * y - x


def get_inputs():
    return [torch.randn(1024, 512), torch.randn(1024, 512)]


def get_init_inputs():
    return []
