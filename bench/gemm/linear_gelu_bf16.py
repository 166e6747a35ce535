"""GEMM suite (issue 8), GEMM + epilogue chain: a bf16 linear layer (weight [N, K]) + bias + GELU, 4096 x 2048 x 2048, f32 accumulation."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2048, 2048, dtype=torch.bfloat16)

    def forward(self, x):
        return torch.nn.functional.gelu(self.fc(x))


def get_inputs():
    return [torch.randn(4096, 2048, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
