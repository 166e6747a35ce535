"""GEMM suite (issue 8): an f16 linear layer (weight [N, K]) + bias + ReLU, f32 accumulation, tensor cores."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2048, 2048, dtype=torch.float16)

    def forward(self, x):
        return torch.relu(self.fc(x))


def get_inputs():
    return [torch.randn(4096, 2048, dtype=torch.float16)]


def get_init_inputs():
    return []
