"""Pooling as linalg pooling ops: a 3x3 max pool of stride 2 with padding 1
(padded with -inf) and a 2x2 average pool, on odd spatial sizes."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return (torch.nn.functional.max_pool2d(x, 3, stride=2, padding=1),
                torch.nn.functional.avg_pool2d(x, 2))


def get_inputs():
    return [torch.randn(2, 8, 15, 17)]


def get_init_inputs():
    return []
