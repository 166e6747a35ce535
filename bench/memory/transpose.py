"""Memory-bound suite (issue 7): 2-D transpose, f32."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.t().contiguous()


def get_inputs():
    return [torch.randn(4096, 4096)]


def get_init_inputs():
    return []
