"""Memory-bound suite (issue 7): fusion: softmax(x * scale + mask), f32."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, mask):
        return torch.softmax(x * 0.125 + mask, -1)


def get_inputs():
    return [torch.randn(4096, 4096), torch.randn(4096, 4096)]


def get_init_inputs():
    return []
