"""GEMM suite (issues 3 and 8): GEMM + bias + ReLU epilogue in f32 with TF32 allowed (one fused kernel)."""
import torch

# TF32 allowed: f32 products may read their inputs as TF32 on tensor cores,
# in EGG (egg.allow_tf32) and in the PyTorch baselines alike. Reported as
# its own row, beside the f32 problem.
ALLOW_TF32 = True


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(1024, 2048)

    def forward(self, x):
        return torch.relu(self.fc(x))


def get_inputs():
    return [torch.randn(2048, 1024)]


def get_init_inputs():
    return []
