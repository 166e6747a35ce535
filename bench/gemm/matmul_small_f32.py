"""GEMM suite (issues 3 and 8): small f32 product, 512x256x1024 (few output tiles)."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a @ b


def get_inputs():
    return [torch.randn(512, 1024), torch.randn(1024, 256)]


def get_init_inputs():
    return []
