"""Memory-bound suite (issue 7): sum over the rows of a narrow matrix (256
columns, 65536 rows, f32): the columns alone give too few blocks, so the
rows are split (reduce_two_stage with split_k)."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.sum(0)


def get_inputs():
    return [torch.randn(65536, 256)]


def get_init_inputs():
    return []
