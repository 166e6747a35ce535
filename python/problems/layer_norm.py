"""KernelBench-format problem: layer_norm."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(512)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(256, 512)]


def get_init_inputs():
    return []
