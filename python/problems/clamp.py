"""KernelBench-format problem: clamp."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return torch.clamp(x, -0.5, 0.5)


def get_inputs():
    return [torch.randn(512, 512)]


def get_init_inputs():
    return []
