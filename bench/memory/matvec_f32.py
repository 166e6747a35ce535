"""Memory-bound suite (issue 7): matrix-vector product, f32 (f32 accumulate)."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, x):
        return torch.matmul(a, x)


def get_inputs():
    return [torch.randn(8192, 4096, dtype=torch.float32), torch.randn(4096, dtype=torch.float32)]


def get_init_inputs():
    return []
