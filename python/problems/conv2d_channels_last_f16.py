"""A channels-last f16 convolution (NHWC input, FHWC weight, stride 2,
padding 1): the front end emits it as an NHWC generic on the tensors as
laid out, which the compiler runs as an implicit GEMM."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(16, 3, 3, 8, dtype=torch.float16) * 0.2)

    def forward(self, x):
        y = torch.nn.functional.conv2d(x.permute(0, 3, 1, 2), self.weight.permute(0, 3, 1, 2),
                                       stride=2, padding=1)
        return y.permute(0, 2, 3, 1)


def get_inputs():
    return [torch.randn(2, 10, 12, 8, dtype=torch.float16)]


def get_init_inputs():
    return []
