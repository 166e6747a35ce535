"""Memory-bound suite (issue 7): batched transpose of the last two
dimensions (attention's K^T), bf16."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.transpose(1, 2).contiguous()


def get_inputs():
    return [torch.randn(16, 2048, 1024, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
