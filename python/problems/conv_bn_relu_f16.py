"""A ResNet-style convolution + inference batch norm + ReLU in f16, NCHW
(PyTorch's default layout): the convolution runs on NHWC copies, the batch
norm is one elementwise op in f32."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(8, 16, 3, padding=1, bias=False, dtype=torch.float16)
        self.bn = torch.nn.BatchNorm2d(16, dtype=torch.float16)
        with torch.no_grad():
            self.bn.running_mean.normal_(0, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)
            self.bn.weight.normal_(1, 0.2)
            self.bn.bias.normal_(0, 0.2)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


def get_inputs():
    return [torch.randn(2, 8, 12, 12, dtype=torch.float16)]


def get_init_inputs():
    return []
