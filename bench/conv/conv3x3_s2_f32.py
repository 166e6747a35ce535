"""Convolution suite (issue 8): 3x3 convolution, stride 2, NCHW, 64 -> 128 channels, 64x64 -> 32x32, padding 1, f32 (TF32 off)."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(64, 128, 3, stride=2, padding=1, bias=False)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(16, 64, 64, 64)]


def get_init_inputs():
    return []
