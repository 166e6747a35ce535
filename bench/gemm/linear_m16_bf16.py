"""GEMM suite (issue 8): a bf16 linear layer 4096 -> 4096 over 16 rows (a
decode step's tokens): M = 16 is below every tile, so one partial 32-row
tile holds it (docs/pipeline.md, "Partial tiles")."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4096, 4096, bias=False, dtype=torch.bfloat16)

    def forward(self, x):
        return self.fc(x)


def get_inputs():
    return [torch.randn(16, 4096, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
