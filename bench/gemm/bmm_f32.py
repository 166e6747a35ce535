"""GEMM suite (issues 3 and 8): batched f32 product, 4 x 1024^3."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.bmm(a, b)


def get_inputs():
    return [torch.randn(4, 1024, 1024), torch.randn(4, 1024, 1024)]


def get_init_inputs():
    return []
