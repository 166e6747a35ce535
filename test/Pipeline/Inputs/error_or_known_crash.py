#!/usr/bin/env python3
"""Runs a tool on malformed input and says whether it was handled: rejected
with a located error, or (for a crash inside MLIR 22's own parser, which
EGG cannot fix) with the tool's message naming that known crash. Anything
else (accepted, a silent crash, a hang) is not handled.

    error_or_known_crash.py TOOL ARGS...
"""
import subprocess
import sys

try:
    r = subprocess.run(sys.argv[1:], capture_output=True, timeout=60)
except subprocess.TimeoutExpired:
    print("handled: no (hang)")
    sys.exit(0)
text = (r.stdout + r.stderr).decode("utf-8", "replace")
if r.returncode == 0:
    print("handled: no (accepted)")
elif "Stack dump" not in text and "error:" in text:
    print("handled: yes (error)")
elif "Known: MLIR 22's parsers" in text:
    print("handled: yes (known upstream crash)")
else:
    print(f"handled: no (exit {r.returncode})")
