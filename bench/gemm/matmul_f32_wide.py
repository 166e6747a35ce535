"""GEMM suite (issues 3 and 8): non-square f32 product, M=4096 N=1024 K=2048."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a @ b


def get_inputs():
    return [torch.randn(4096, 2048), torch.randn(2048, 1024)]


def get_init_inputs():
    return []
