"""GEMM suite (issues 3 and 8): square bf16 product with f32 accumulation (tensor cores)."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a @ b


def get_inputs():
    return [torch.randn(2048, 2048, dtype=torch.bfloat16), torch.randn(2048, 2048, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
