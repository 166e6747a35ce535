"""Memory-bound suite (issue 7): elementwise transcendental, bf16."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.nn.functional.gelu(x)


def get_inputs():
    return [torch.randn(4096, 4096, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
