"""Convolution suite (issue 8): 1x1 convolution, channels-last, 256 -> 256 channels, 32x32, bf16 with f32 accumulation."""
import torch


class Model(torch.nn.Module):
    """Channels-last: x is [N, H, W, C], the weight [F, KH, KW, C]."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(256, 1, 1, 256, dtype=torch.bfloat16) * 0.05)

    def forward(self, x):
        y = torch.nn.functional.conv2d(x.permute(0, 3, 1, 2), self.weight.permute(0, 3, 1, 2),
                                       stride=1, padding=0)
        return y.permute(0, 2, 3, 1)


def get_inputs():
    return [torch.randn(16, 32, 32, 256, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
