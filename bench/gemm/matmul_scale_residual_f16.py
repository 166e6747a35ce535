"""GEMM suite (issue 8), GEMM + epilogue chain: f16 product, scaled, plus a residual, 4096 x 2048 x 2048, f32 accumulation."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w, residual):
        return (x @ w) * 0.5 + residual


def get_inputs():
    return [torch.randn(4096, 2048, dtype=torch.float16), torch.randn(2048, 2048, dtype=torch.float16),
            torch.randn(4096, 2048, dtype=torch.float16)]


def get_init_inputs():
    return []
