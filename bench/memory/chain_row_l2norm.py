"""Memory-bound suite (issue 7): fusion: reduction epilogue sqrt(sum(x*x)), f32."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return (x * x).sum(-1).sqrt()


def get_inputs():
    return [torch.randn(8192, 4096)]


def get_init_inputs():
    return []
