"""GEMM suite (issue 8): a bf16 product with a small result over a long K,
1024 x 8192 x 1024 (64 output tiles of 128 x 128 for 132 SMs): split along
K (docs/pipeline.md, "Split-K")."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a @ b


def get_inputs():
    return [torch.randn(1024, 8192, dtype=torch.bfloat16),
            torch.randn(8192, 1024, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
