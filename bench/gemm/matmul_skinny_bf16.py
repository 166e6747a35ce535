"""GEMM suite (issue 8): skinny bf16 product, M = 32 (a small batch through a 4096 x 4096 layer), f32 accumulation."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a @ b


def get_inputs():
    return [torch.randn(32, 4096, dtype=torch.bfloat16), torch.randn(4096, 4096, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
