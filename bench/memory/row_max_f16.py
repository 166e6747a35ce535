"""Memory-bound suite (issue 7): max along rows, f16."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.amax(-1)


def get_inputs():
    return [torch.randn(8192, 4096, dtype=torch.float16)]


def get_init_inputs():
    return []
