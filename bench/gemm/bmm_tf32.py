"""GEMM suite (issues 3 and 8): batched f32 product, 4 x 1024^3, with TF32 allowed."""
import torch

# TF32 allowed: f32 products may read their inputs as TF32 on tensor cores,
# in EGG (egg.allow_tf32) and in the PyTorch baselines alike. Reported as
# its own row, beside the f32 problem.
ALLOW_TF32 = True


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.bmm(a, b)


def get_inputs():
    return [torch.randn(4, 1024, 1024), torch.randn(4, 1024, 1024)]


def get_init_inputs():
    return []
