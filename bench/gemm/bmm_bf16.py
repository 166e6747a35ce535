"""GEMM suite (issue 8): batched bf16 product, 16 x 1024^3, f32 accumulation, tensor cores."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.bmm(a, b)


def get_inputs():
    return [torch.randn(16, 1024, 1024, dtype=torch.bfloat16),
            torch.randn(16, 1024, 1024, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
