"""Convolution suite (issue 8): 3x3 convolution, channels-last (NHWC input, FHWC weight), 64 -> 128 channels, 64x64, padding 1, f16 with f32 accumulation."""
import torch


class Model(torch.nn.Module):
    """Channels-last: x is [N, H, W, C], the weight [F, KH, KW, C]."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(128, 3, 3, 64, dtype=torch.float16) * 0.05)

    def forward(self, x):
        y = torch.nn.functional.conv2d(x.permute(0, 3, 1, 2), self.weight.permute(0, 3, 1, 2),
                                       stride=1, padding=1)
        return y.permute(0, 2, 3, 1)


def get_inputs():
    return [torch.randn(16, 64, 64, 64, dtype=torch.float16)]


def get_init_inputs():
    return []
