#!/usr/bin/env python3
"""Edits a decisions file for the replay tests: `shift IN OUT` renames every
kernel <function>_k<N> to _k<N+1>, as a kernel added in front would;
`other-body IN OUT` keeps the names and changes every recorded signature, as
an input edited since recording would; `drop-first IN OUT` leaves out the
first kernel and renames the others _k<N-1>, as a recording made before that
kernel was added to the input would."""
import json, re, sys

mode, src, dst = sys.argv[1:]
d = json.load(open(src))
if mode == "drop-first":
    d["kernels"] = d["kernels"][1:]
for k in d["kernels"]:
    if mode == "shift":
        k["name"] = re.sub(r"_k(\d+)$", lambda m: f"_k{int(m.group(1)) + 1}",
                           k["name"])
    elif mode == "drop-first":
        k["name"] = re.sub(r"_k(\d+)$", lambda m: f"_k{int(m.group(1)) - 1}",
                           k["name"])
    else:
        k["signature"] = "0" * 16
json.dump(d, open(dst, "w"), indent=2)
