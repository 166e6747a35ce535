"""python -m egg MODULE_FILE: print the MLIR of a KernelBench-format problem."""
import sys

from .kernelbench import import_problem

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m egg PROBLEM.py  (prints its linalg MLIR)")
    print(import_problem(sys.argv[1])[3].mlir, end="")
