"""Memory-bound suite (issue 7): fusion: silu(x) * y, bf16."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return x * torch.sigmoid(x) * y


def get_inputs():
    return [torch.randn(4096, 4096, dtype=torch.bfloat16), torch.randn(4096, 4096, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
