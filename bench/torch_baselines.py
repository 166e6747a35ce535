#!/usr/bin/env python3
"""PyTorch eager and torch.compile timings of the examples/ problems.

Each entry is the PyTorch equivalent of examples/<name>.mlir (same shapes and
element types). Timing: CUDA events, warm-up, L2 flushed before every run
(a write of 2x the L2 size), median of many runs, fresh random inputs.

    torch_baselines.py OUT.json [names...]
"""
import json
import sys

import os

import torch
import torch.nn.functional as F

# The timing method is shared with `python -m egg.bench` (python/egg/timing.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from egg.timing import time_ms  # noqa: E402

f32, f16, bf16 = torch.float32, torch.float16, torch.bfloat16


def layernorm(x, g, b):
    return F.layer_norm(x, (x.shape[-1],), g, b, eps=1e-5)


def rmsnorm(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


def mm_f32acc(a, b):
    """A 16-bit product with an f32 result as a PyTorch user writes it: one
    cuBLAS call on the 16-bit operands that accumulates and returns f32
    (`out_dtype`), or, on PyTorch without it, the 16-bit product cast up."""
    try:
        return torch.mm(a, b, out_dtype=torch.float32)
    except TypeError:
        return torch.matmul(a, b).float()


PROBLEMS = {
    "elementwise_chain": (lambda x, y: torch.tanh(x * 2 + 1) * y - x,
                          [((2048, 2048), f32), ((2048, 2048), f32)]),
    "broadcast_add": (lambda x, b: x + b, [((1024, 1024), f32), ((1024,), f32)]),
    "transpose": (lambda x: x.t().contiguous(), [((1024, 2048), f32)]),
    "relu_f16": (torch.relu, [((4096, 1024), f16)]),
    "row_sum": (lambda x: x.sum(1), [((4096, 1024), f32)]),
    "col_max": (lambda x: x.amax(0), [((1024, 4096), f32)]),
    "row_mean_bf16": (lambda x: x.float().mean(1), [((2048, 2048), bf16)]),
    "softmax": (lambda x: torch.softmax(x, 1), [((1024, 1024), f32)]),
    "layernorm": (layernorm, [((2048, 1024), f32), ((1024,), f32), ((1024,), f32)]),
    "rmsnorm": (rmsnorm, [((2048, 1024), f32), ((1024,), f32)]),
    "matmul_f32": (torch.matmul, [((512, 1024), f32), ((1024, 256), f32)]),
    "matmul_f16": (mm_f32acc, [((512, 512), f16), ((512, 512), f16)]),
    "matmul_bf16": (mm_f32acc, [((256, 768), bf16), ((768, 512), bf16)]),
    "matmul_transpose_b": (lambda a, b: a @ b.t(), [((512, 256), f32), ((384, 256), f32)]),
    "batch_matmul": (torch.bmm, [((8, 256, 128), f32), ((8, 128, 192), f32)]),
    "matvec": (torch.mv, [((4096, 2048), f32), ((2048,), f32)]),
    "conv_nchw": (F.conv2d, [((4, 32, 34, 34), f32), ((64, 32, 3, 3), f32)]),
    "conv_nhwc_stride2": (
        lambda x, w: F.conv2d(x.permute(0, 3, 1, 2), w.permute(3, 2, 0, 1),
                              stride=2).permute(0, 2, 3, 1),
        [((4, 65, 65, 32), f32), ((3, 3, 32, 64), f32)]),
    "conv_dilated": (lambda x, w: F.conv2d(x, w, dilation=2),
                     [((2, 16, 36, 36), f32), ((32, 16, 3, 3), f32)]),
    "conv_padded": (lambda x, w: F.conv2d(x, w, padding=1),
                    [((4, 32, 32, 32), f32), ((64, 32, 3, 3), f32)]),
    "gemm_bias_relu": (lambda a, b, c: torch.relu(a @ b + c),
                       [((1024, 512), f32), ((512, 256), f32), ((256,), f32)]),
    "scale_mask_softmax": (lambda x, m: torch.softmax(x * 0.125 + m, 1),
                           [((1024, 1024), f32), ((1024, 1024), f32)]),
    "residual_layernorm": (lambda x, r, g, b: layernorm(x + r, g, b),
                           [((1024, 768), f32), ((1024, 768), f32),
                            ((768,), f32), ((768,), f32)]),
    "conv_bias_relu": (lambda x, w, b: torch.relu(F.conv2d(x, w, b)),
                       [((4, 16, 34, 34), f32), ((32, 16, 3, 3), f32), ((32,), f32)]),
    "center_rows": (lambda x: x - x.mean(1, keepdim=True), [((4096, 512), f32)]),
    "gelu_bias": (lambda x, b: F.gelu(x + b), [((2048, 1024), f32), ((1024,), f32)]),
    "erf_f16": (torch.erf, [((2048, 2048), f16)]),
    "linear_tf32": (lambda x, w: x @ w.t(), [((1024, 256), f32), ((4096, 256), f32)]),
    "exp_log_chain": (lambda x: (lambda sp: sp / (1 + torch.exp(-sp)))(F.softplus(x)),
                      [((4194304,), f32)]),
    "group_norm": (lambda x, g, b: F.group_norm(x, 8, g, b, eps=1e-5),
                   [((4, 32, 16, 16), f32), ((32,), f32), ((32,), f32)]),
    "depthwise_conv": (
        lambda x, w: F.conv2d(x.permute(0, 3, 1, 2),
                              w.permute(2, 0, 1).unsqueeze(1),
                              groups=64).permute(0, 2, 3, 1),
        [((4, 34, 34, 64), f32), ((3, 3, 64), f32)]),
    "clamp_select": (lambda x, y: torch.where(y > 0, x.clamp(-1, 1), torch.minimum(x, y)),
                     [((1024, 2048), f32), ((1024, 2048), f32)]),
}

# Examples whose module allows TF32 (egg.allow_tf32): PyTorch may use it too.
TF32 = {"linear_tf32"}


def main():
    torch.backends.cuda.matmul.allow_tf32 = False  # f32 problems stay f32.
    torch.backends.cudnn.allow_tf32 = False
    names = sys.argv[2:] or list(PROBLEMS)
    results = {}
    for name in names:
        fn, specs = PROBLEMS[name]
        torch.backends.cuda.matmul.allow_tf32 = name in TF32
        args = [torch.randn(s, device="cuda").to(t) for s, t in specs]
        eager = time_ms(fn, args)
        try:
            compiled = torch.compile(fn)
            compiled_ms = time_ms(compiled, args)
        except Exception as e:  # Report, never hide.
            compiled_ms = None
            print(f"{name}: torch.compile failed: {e}", file=sys.stderr)
        results[name] = {"eager_ms": eager, "compile_ms": compiled_ms}
        print(f"{name:22s} eager {eager:8.4f} ms  torch.compile "
              f"{compiled_ms if compiled_ms is None else round(compiled_ms, 4)} ms",
              flush=True)
    json.dump(results, open(sys.argv[1], "w"), indent=1)


if __name__ == "__main__":
    main()
