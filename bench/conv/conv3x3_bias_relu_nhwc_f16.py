"""Convolution suite (issue 8), conv + epilogue chain: 3x3 convolution, channels-last, 64 -> 128 channels, 64x64, padding 1, + bias + ReLU, f16 with f32 accumulation."""
import torch


class Model(torch.nn.Module):
    """Channels-last: x is [N, H, W, C], the weight [F, KH, KW, C]."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(128, 3, 3, 64, dtype=torch.float16) * 0.05)
        self.bias = torch.nn.Parameter(torch.randn(128, dtype=torch.float16) * 0.1)

    def forward(self, x):
        y = torch.nn.functional.conv2d(x.permute(0, 3, 1, 2), self.weight.permute(0, 3, 1, 2),
                                       bias=self.bias, stride=1, padding=1)
        return torch.relu(y.permute(0, 2, 3, 1))


def get_inputs():
    return [torch.randn(16, 64, 64, 64, dtype=torch.float16)]


def get_init_inputs():
    return []
