#!/usr/bin/env bash
# Convolutions (issue 8): NCHW f32 (TF32 off) as PyTorch modules give them,
# and channels-last f16/bf16 (tensor cores), one with bias + ReLU fused;
# eager is cuDNN.
#   bench/conv.sh [problem.py...]        (default: all of bench/conv/)
exec "$(dirname "$0")/run-suite.sh" conv "$@"
