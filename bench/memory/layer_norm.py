"""Memory-bound suite (issue 7): layer norm, f32."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(4096)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(4096, 4096)]


def get_init_inputs():
    return []
