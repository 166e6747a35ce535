"""A bf16 convolution in PyTorch's default layout (NCHW input, FCHW weight,
padding 1, with a bias): the front end transposes input and weight to NHWC
and FHWC, runs the NHWC implicit GEMM with the bias added in f32, and gives
the result back NCHW."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(8, 16, 3, padding=1, dtype=torch.bfloat16)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(2, 8, 10, 12, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
