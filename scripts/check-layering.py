#!/usr/bin/env python3
"""Checks the codebase's layering rules (docs/architecture.md, "Layering"):

  * the dialect, the target profiles, the analyses and the lowering passes
    include nothing from the layers above them (agents, tuning, pipelines,
    translations, evaluation, tools), and MLIREggTransforms does not link
    EggAgents;
  * no source file in lib/ or tools/ is longer than MAX_LINES, except the
    reference interpreter (one case per op it interprets);
  * hardware facts (thread, register and shared-memory limits, chip names)
    appear as literals only in lib/Target.

Exit status 1 with one line per violation. Run by ctest (`layering`)."""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 900
LONG_FILES_ALLOWED = {"lib/Eval/Reference.cpp"}

# Layer -> include prefixes it must not use.
ABOVE = ("egg/Agents/", "egg/Tune/", "egg/Pipelines/", "egg/Translate/",
         "egg/Eval/", "egg/Tools/")
FORBIDDEN_INCLUDES = {
    "lib/Dialect/Egg/IR": ABOVE + ("egg/Analysis/", "egg/Dialect/Egg/Transforms/"),
    "include/egg/Dialect/Egg/IR": ABOVE + ("egg/Analysis/", "egg/Dialect/Egg/Transforms/"),
    "lib/Target": ABOVE + ("egg/Analysis/", "egg/Dialect/Egg/Transforms/"),
    "include/egg/Target": ABOVE + ("egg/Analysis/", "egg/Dialect/Egg/Transforms/"),
    "lib/Analysis": ABOVE + ("egg/Dialect/Egg/Transforms/",),
    "include/egg/Analysis": ABOVE + ("egg/Dialect/Egg/Transforms/",),
    "lib/Dialect/Egg/Transforms": ABOVE,
    "include/egg/Dialect/Egg/Transforms": ABOVE,
}
FORBIDDEN_LINKS = {
    "lib/Dialect/Egg/Transforms/CMakeLists.txt": ("EggAgents", "EggTune", "EggPipelines"),
    "lib/Analysis/CMakeLists.txt": ("EggAgents", "EggTune", "MLIREggTransforms"),
}

# Hardware facts that belong to lib/Target (the profile table and its
# queries): a pattern and what it is. Comments and string literals are not
# code and are not checked.
HARDWARE_LITERALS = [
    (r"\b65536\b", "registers per block/SM"),
    (r"\b255\b", "registers per thread"),
    (r"\b232448\b|\b166912\b", "shared memory per block"),
    (r"\b48\s*\*\s*1024\b|\b49152\b", "static shared memory per block"),
    (r"\b2048\s*/|/\s*2048\b|[Tt]hreads\w*[^;]*\b2048\b", "threads per SM"),
    (r"\.getSmVersion\(\)\s*[<>=!]|\.hasArchSpecificFeatures\(\)|==\s*\"sm_\d+a?\"",
     "a capability read from the chip (lib/Target's supports*)"),
    (r"[Tt]hreads?\w*\b[^;]*[<>]=?\s*1024\b|\b1024\s*[<>]=?[^;]*[Tt]hreads?",
     "threads per block"),
]
HARDWARE_HOME = ("lib/Target/", "include/egg/Target/")


def code_only(line):
    """The line without its // comment and string literals."""
    line = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
    return line.split("//", 1)[0]


def sources(*folders):
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".cpp", ".h", ".td"):
                yield path


def main():
    problems = []
    for folder, banned in FORBIDDEN_INCLUDES.items():
        for path in sources(folder):
            for n, line in enumerate(path.read_text().splitlines(), 1):
                m = re.match(r'\s*#include\s+"([^"]+)"', line)
                if m and m.group(1).startswith(banned):
                    problems.append(f"{path.relative_to(ROOT)}:{n}: includes {m.group(1)} "
                                    f"from a layer above {folder}")
    for cmake, banned in FORBIDDEN_LINKS.items():
        text = (ROOT / cmake).read_text()
        for lib in banned:
            if re.search(rf"^\s*{lib}\s*$", text, re.M):
                problems.append(f"{cmake}: links {lib}, a layer above it")
    for path in sources("lib", "tools"):
        rel = str(path.relative_to(ROOT))
        lines = path.read_text().splitlines()
        if len(lines) > MAX_LINES and rel not in LONG_FILES_ALLOWED:
            problems.append(f"{rel}: {len(lines)} lines; split it along its seams "
                            f"(at most {MAX_LINES})")
        if rel.startswith(HARDWARE_HOME) or path.suffix == ".td":
            continue
        for n, line in enumerate(lines, 1):
            if "NOLINT(hardware-literal)" in line:  # A heuristic, said why.
                continue
            code = code_only(line)
            for pattern, what in HARDWARE_LITERALS:
                if re.search(pattern, code):
                    problems.append(f"{rel}:{n}: hardware literal ({what}) outside "
                                    f"lib/Target: {line.strip()}")
    for p in problems:
        print(p)
    print(f"{len(problems)} layering problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
