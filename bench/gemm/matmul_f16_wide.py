"""GEMM suite (issue 8): non-square f16 product, 4096 x 4096 x 1024, f32 accumulation, tensor cores."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a @ b


def get_inputs():
    return [torch.randn(4096, 1024, dtype=torch.float16),
            torch.randn(1024, 4096, dtype=torch.float16)]


def get_init_inputs():
    return []
