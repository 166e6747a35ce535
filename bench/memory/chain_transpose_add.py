"""Memory-bound suite (issue 7), fusion chain: a transposed operand added
to a contiguous one (x^T + y), f32."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return x.t() + y


def get_inputs():
    return [torch.randn(4096, 4096), torch.randn(4096, 4096)]


def get_init_inputs():
    return []
