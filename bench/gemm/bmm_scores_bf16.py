"""GEMM suite (issue 8), batched GEMM + epilogue chain: attention scores q @ k^T / sqrt(d) in bf16, 32 x 1024 x 1024 x 128, f32 accumulation."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k):
        return torch.bmm(q, k.transpose(1, 2)) * (128 ** -0.5)


def get_inputs():
    return [torch.randn(32, 1024, 128, dtype=torch.bfloat16), torch.randn(32, 1024, 128, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
