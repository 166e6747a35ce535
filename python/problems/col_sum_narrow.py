"""KernelBench-format problem: col_sum_narrow (128 columns: the rows are split
into slices, reduce_two_stage with split_k)."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.sum(dim=0) * 0.5


def get_inputs():
    return [torch.randn(16384, 128)]


def get_init_inputs():
    return []
