"""GEMM suite (issues 3 and 8): f32 product with a transposed second operand (x @ w.T)."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w):
        return x @ w.t()


def get_inputs():
    return [torch.randn(2048, 2048), torch.randn(2048, 2048)]


def get_init_inputs():
    return []
