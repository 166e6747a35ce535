"""Memory-bound suite (issue 7): awkward shape: rows shorter than a warp, f32."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, -1)


def get_inputs():
    return [torch.randn(524288, 20)]


def get_init_inputs():
    return []
