"""KernelBench-format problem: linear_longk_bf16 (256 rows, 4096 -> 512 +
bias, bf16): eight output tiles over a long K, split along K into a
workspace and summed with the bias (docs/pipeline.md, "Split-K")."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4096, 512, dtype=torch.bfloat16)

    def forward(self, x):
        return self.fc(x)


def get_inputs():
    return [torch.randn(256, 4096, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
