"""KernelBench-format problem: linear_odd_gelu (100 rows, 256 -> 200: M and
N that no tile divides, partial last tiles)."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(256, 200)

    def forward(self, x):
        return torch.nn.functional.gelu(self.fc(x))


def get_inputs():
    return [torch.randn(100, 256)]


def get_init_inputs():
    return []
