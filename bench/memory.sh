#!/usr/bin/env bash
# Performance I (issue 7): 20 memory-bound operators and 9 fusion chains.
#   bench/memory.sh [problem.py...]      (default: all of bench/memory/)
exec "$(dirname "$0")/run-suite.sh" memory "$@"
