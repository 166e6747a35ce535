#!/usr/bin/env bash
# The whole test suite from a fresh Debian 12 machine: install, build, test.
#   scripts/test.sh            (lit + unit tests + CMake-package test)
# GPU tests are lit tests marked `REQUIRES: gpu`: they show as UNSUPPORTED
# here and run on a GPU host through scripts/gpu-check.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${EGG_BUILD_DIR:-$here/build}
# Chromium: the egg-tune report is tested in a real browser.
EGG_EXTRA_PACKAGES="chromium ${EGG_EXTRA_PACKAGES:-}" "$here/scripts/setup.sh" "$build"
cd "$build"
ctest --output-on-failure -j "${EGG_JOBS:-2}"
