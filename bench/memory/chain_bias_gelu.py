"""Memory-bound suite (issue 7): fusion: gelu(x + bias), f32."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.randn(4096))

    def forward(self, x):
        return torch.nn.functional.gelu(x + self.bias)


def get_inputs():
    return [torch.randn(4096, 4096)]


def get_init_inputs():
    return []
