"""Memory-bound suite (issue 7): fusion: silu(rms_norm(x)), f32."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(4096))

    def forward(self, x):
        y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight
        return y * torch.sigmoid(y)


def get_inputs():
    return [torch.randn(4096, 4096)]


def get_init_inputs():
    return []
