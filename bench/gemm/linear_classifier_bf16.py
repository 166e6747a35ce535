"""GEMM suite (issue 8): a classifier head, bf16 linear layer 4096 -> 1000
(+ bias) over 4096 rows: N = 1000, which no tile of 64 or 128 divides."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4096, 1000, dtype=torch.bfloat16)

    def forward(self, x):
        return self.fc(x)


def get_inputs():
    return [torch.randn(4096, 4096, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
