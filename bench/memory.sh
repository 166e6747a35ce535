#!/usr/bin/env bash
# Performance I (issue 7): 23 memory-bound operators (two of them at 128-256 MB) and 10 fusion chains.
#   bench/memory.sh [problem.py...]      (default: all of bench/memory/)
# Every timer here flushes L2 by reading a buffer (EGG_L2_FLUSH=read, as
# Nsight Compute's cache control leaves L2: clean): the issue's
# 90%-of-copy-bandwidth targets are judged that way, because with the write
# flush even a plain copy reaches only 88% of the copy floor
# (docs/benchmarks.md). EGG_L2_FLUSH=write gives the earlier tables' timer.
export EGG_L2_FLUSH=${EGG_L2_FLUSH:-read}
exec "$(dirname "$0")/run-suite.sh" memory "$@"
