#!/usr/bin/env bash
# The lit tests marked `REQUIRES: gpu`, on the GPU host (no LLVM there):
#   scripts/gpu-lit.sh BUNDLE_BIN WORK
# lit and FileCheck come from PyPI (`lit`, `filecheck`: carried as wheels
# in .whl/, README of the device tool); `not` and `count` are two lines
# each. The suite runs from a copy of test/ with a site config that names
# the bundle's tools.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$1 work=$2
mkdir -p "$work/llvm-bin"
cp -r "$here/test" "$work/test"
# lit passes tests a clean environment: the wrapper names where filecheck is.
cat > "$work/llvm-bin/FileCheck" <<SH
#!/bin/sh
PYTHONPATH="${PYTHONPATH:-}" exec python3 -c 'import sys; from filecheck.main import main; sys.exit(main())' "\$@"
SH
cat > "$work/llvm-bin/not" <<'SH'
#!/bin/sh
"$@" && exit 1 || exit 0
SH
cat > "$work/llvm-bin/count" <<'SH'
#!/bin/sh
test "$(wc -l)" -eq "$1"
SH
chmod +x "$work/llvm-bin"/*
cat > "$work/test/lit.site.cfg.py" <<PY
config.llvm_tools_dir = "$work/llvm-bin"
config.mlir_obj_dir = "$work"
config.egg_tools_dir = "$bin"
config.egg_libs_dir = "$work"
config.egg_src_dir = "$here"
config.egg_static_tools = True
config.egg_has_plugin = False
import lit.llvm
lit.llvm.initialize(lit_config, config)
lit_config.load_config(config, "$here/test/lit.cfg.py")
PY
# The lit package from PyPI has no __main__: start its main() directly.
PATH=$work/llvm-bin:$PATH EGG_GPU_TESTS=1 python3 -c 'from lit.main import main; main()' \
  -v "$work/test/GPU"
