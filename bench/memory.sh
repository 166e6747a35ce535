#!/usr/bin/env bash
# Performance I (issue 7): 21 memory-bound operators and 10 fusion chains.
#   bench/memory.sh [problem.py...]      (default: all of bench/memory/)
exec "$(dirname "$0")/run-suite.sh" memory "$@"
