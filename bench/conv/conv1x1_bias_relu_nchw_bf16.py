"""Convolution suite (issue 8): 1x1 convolution + bias + ReLU in PyTorch's default layout (NCHW), 256 -> 64 channels, 32x32, bf16 with f32 accumulation (a ResNet bottleneck's reduction)."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(256, 64, 1, dtype=torch.bfloat16)

    def forward(self, x):
        return torch.relu(self.conv(x))


def get_inputs():
    return [torch.randn(32, 256, 32, 32, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
