"""GEMM suite (issue 8): an f32 linear layer 1024 -> 1000 + ReLU over 3000
rows: M = 3000 and N = 1000, which no tile of 64 divides (partial last
tiles, docs/pipeline.md)."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(1024, 1000)

    def forward(self, x):
        return torch.relu(self.fc(x))


def get_inputs():
    return [torch.randn(3000, 1024)]


def get_init_inputs():
    return []
