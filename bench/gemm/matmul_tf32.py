"""GEMM suite (issues 3 and 8): f32 product (x @ w, w N-contiguous: copied transposed into K-major TF32 tiles) with TF32 allowed."""
import torch

# TF32 allowed: f32 products may read their inputs as TF32 on tensor cores,
# in EGG (egg.allow_tf32) and in the PyTorch baselines alike. Reported as
# its own row, beside the f32 problem.
ALLOW_TF32 = True


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w):
        return x @ w


def get_inputs():
    return [torch.randn(2048, 2048), torch.randn(2048, 2048)]


def get_init_inputs():
    return []
