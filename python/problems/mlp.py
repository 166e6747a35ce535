"""KernelBench-format problem: mlp."""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(128, 256)
        self.fc2 = torch.nn.Linear(256, 128)

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x), approximate='tanh'))


def get_inputs():
    return [torch.randn(64, 128)]


def get_init_inputs():
    return []
