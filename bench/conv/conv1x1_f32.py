"""Convolution suite (issue 8): 1x1 convolution, NCHW, 256 -> 256 channels, 32x32, f32 (TF32 off)."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(256, 256, 1, stride=1, padding=0, bias=False)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(16, 256, 32, 32)]


def get_init_inputs():
    return []
