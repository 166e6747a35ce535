"""Memory-bound suite (issue 7): softmax along rows, f16, 128 MB in, 128 MB out.

softmax_f16 is the 32 MB version of the same rows.
"""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, -1)


def get_inputs():
    return [torch.randn(32768, 2048, dtype=torch.float16)]


def get_init_inputs():
    return []
