#!/usr/bin/env bash
# The whole test suite from a fresh Debian 12 machine: install, build, test.
#   scripts/test.sh            (lit + unit tests + CMake-package test + pytest)
# GPU tests are lit tests marked `REQUIRES: gpu`: they show as UNSUPPORTED
# here and run on a GPU host through scripts/gpu-check.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${EGG_BUILD_DIR:-$here/build}
# Chromium: the egg-tune report is tested in a real browser; python3-venv:
# the Python tests run in a venv; libgomp1: llama.cpp's server (below).
EGG_EXTRA_PACKAGES="chromium python3-venv libgomp1 ${EGG_EXTRA_PACKAGES:-}" "$here/scripts/setup.sh" "$build"
cd "$build"
ctest --output-on-failure -j "${EGG_JOBS:-2}"

# The Python package (python/): PyTorch from PyPI runs on the CPU here, which
# is all the front end needs; its tests compile with the tools just built.
venv=$build/python-venv
if [[ ! -x $venv/bin/python ]]; then
  python3 -m venv "$venv"
fi
# xllamacpp and gguf: llama.cpp's server and a tiny model it serves, for
# the LLM agent's test against a real endpoint (test_llm_server.py); Ray:
# egg-tune and egg.bench on a local cluster (test_cluster.py).
"$venv/bin/pip" install -q --disable-pip-version-check torch numpy pytest einops \
  xllamacpp==2026.10.11549 gguf==0.19.0 ray==2.52.1
"$venv/bin/pip" install -q --disable-pip-version-check -e "$here/python"
EGG_TOOLS=$build/bin "$venv/bin/python" -m pytest -q "$here/python/tests"
