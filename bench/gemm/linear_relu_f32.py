"""GEMM suite (issues 3 and 8): GEMM + bias + ReLU epilogue in f32 (one fused kernel)."""
import torch


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
