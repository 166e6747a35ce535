"""GEMM suite (issue 8): an f16 product whose M and N (1000) no tile of 64
divides, 1000 x 1000 x 4096: partial last tiles (docs/pipeline.md)."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a @ b


def get_inputs():
    return [torch.randn(1000, 4096, dtype=torch.float16),
            torch.randn(4096, 1000, dtype=torch.float16)]


def get_init_inputs():
    return []
