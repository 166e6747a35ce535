"""Memory-bound suite (issue 7): awkward shape: non-power-of-two rows, f32."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.sum(-1)


def get_inputs():
    return [torch.randn(6000, 1500)]


def get_init_inputs():
    return []
