"""GEMM suite (issue 8): f16 product whose K (1000) is not a multiple of the 64-wide K tile, 2048 x 2048 x 1000, f32 accumulation."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a @ b


def get_inputs():
    return [torch.randn(2048, 1000, dtype=torch.float16), torch.randn(1000, 2048, dtype=torch.float16)]


def get_init_inputs():
    return []
