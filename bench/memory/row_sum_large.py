"""Memory-bound suite (issue 7): reduction along rows, f32, 256 MB.

row_sum is the 64 MB version; at this size the copy floor is reachable
(a 64 MB read pays ramp-up and drain that no kernel avoids).
"""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.sum(-1)


def get_inputs():
    return [torch.randn(8192, 8192)]


def get_init_inputs():
    return []
