"""GEMM suite (issues 3 and 8): square f32 matrix product (TF32 off): cuBLAS SGEMM through eager."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a @ b


def get_inputs():
    return [torch.randn(2048, 2048), torch.randn(2048, 2048)]


def get_init_inputs():
    return []
