"""Convolution suite (issue 8): 3x3 convolution in PyTorch's default layout (NCHW input, FCHW weight), 64 -> 128 channels, 64x64, padding 1, f16 with f32 accumulation (transposed to NHWC for tensor cores, as cuDNN does)."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(64, 128, 3, padding=1, bias=False, dtype=torch.float16)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(16, 64, 64, 64, dtype=torch.float16)]


def get_init_inputs():
    return []
