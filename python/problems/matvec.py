"""KernelBench-format problem: matvec."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, a, v):
        return torch.matmul(a, v.unsqueeze(1)).squeeze(1)


def get_inputs():
    return [torch.randn(1024, 512), torch.randn(512)]


def get_init_inputs():
    return []
