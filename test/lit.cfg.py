# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "EGG"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "README.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "faults.py", "examples.py", "fake_llm.py", "fake_eval.py", "check_tune.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mlir_obj_dir, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
import sys
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%egg_libs", config.egg_libs_dir))
config.substitutions.append(("%egg_src", config.egg_src_dir))
config.substitutions.append(("%egg_tools", config.egg_tools_dir))
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# The plugin test needs upstream mlir-opt and a shared-library build.
if config.egg_has_plugin:
    config.available_features.add("egg-plugin")
# egg-eval is built only where the CUDA toolkit's headers are found.
if os.path.exists(os.path.join(config.egg_tools_dir, "egg-eval")):
    config.available_features.add("egg-eval")
# GPU tests run on the device host only (scripts/gpu-check.sh).
if os.environ.get("EGG_GPU_TESTS") == "1":
    config.available_features.add("gpu")

# The report test drives a real browser where one is installed.
import shutil
if shutil.which("chromium"):
    config.available_features.add("chromium")

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.egg_tools_dir, config.llvm_tools_dir]
tools = ["egg-opt", "egg-translate", "egg-tune", "egg-eval", ToolSubst("mlir-opt", unresolved="ignore")]
llvm_config.add_tool_substitutions(tools, tool_dirs)
