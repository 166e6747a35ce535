"""KernelBench-format problem: linear_skinny_bf16 (20 rows, 512 -> 1000 in
bf16: M below every tile and N that none divides, partial tiles)."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(512, 1000, dtype=torch.bfloat16)

    def forward(self, x):
        return self.fc(x)


def get_inputs():
    return [torch.randn(20, 512, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
