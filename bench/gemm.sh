#!/usr/bin/env bash
# Matrix products (issues 3 and 8): f32 (TF32 off), bf16, f16 (up to 4096^3),
# batched, skinny (M = 32), K not a multiple of the tile,
# transposed, and 5 with an epilogue (bias + ReLU/GELU, scale + residual,
# attention scores); eager is cuBLAS.
#   bench/gemm.sh [problem.py...]        (default: all of bench/gemm/)
exec "$(dirname "$0")/run-suite.sh" gemm "$@"
