"""KernelBench-format problem: swish."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return x * torch.sigmoid(x)


def get_inputs():
    return [torch.randn(512, 1024)]


def get_init_inputs():
    return []
