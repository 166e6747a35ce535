#!/usr/bin/env bash
# Matrix products (issues 3 and 8): f32 (TF32 off), bf16, batched,
# transposed, with an epilogue; eager is cuBLAS.
#   bench/gemm.sh [problem.py...]        (default: all of bench/gemm/)
exec "$(dirname "$0")/run-suite.sh" gemm "$@"
