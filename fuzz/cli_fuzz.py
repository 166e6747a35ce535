#!/usr/bin/env python3
"""Fuzzes a tool's command line: random argv built from the tool's own
options (read from its source, so the list follows the code) with hostile
values (huge, negative, NaN, empty, binary, very long, missing / unreadable
/ corrupted files), plus mutated copies of real input files. A run passes
when the tool exits with a documented status (CLI_FUZZ_OK, default
0,1,2,3: egg-eval's) within the time limit with no sanitizer report or
stack dump; anything else is kept as a reproducer.

    fuzz/cli_fuzz.py TOOL SOURCE.cpp SECONDS OUT_DIR [SEED_INPUT...]
"""
import os
import random
import re
import shlex
import subprocess
import sys
import time

tool, source, seconds, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
out = os.path.abspath(out)
tool = os.path.abspath(tool) if os.sep in tool else tool
seeds = [open(p, "rb").read() for p in sys.argv[5:]]
os.makedirs(out, exist_ok=True)
# The tool runs in a scratch folder: the fuzzed options name files it
# writes (--json=x), which must not land where the fuzzer was started.
scratch = os.path.join(out, "cwd")
os.makedirs(scratch, exist_ok=True)
rng = random.Random(int(os.environ.get("CLI_FUZZ_SEED", "0")))
ok_codes = {int(c) for c in os.environ.get("CLI_FUZZ_OK", "0,1,2,3").split(",")}

# cl::opt<T> name("flag", ...) -> (flag, T)
options = re.findall(r'cl::opt<\s*([\w:]+)\s*>\s*\w+\s*\(\s*"([\w-]+)"',
                     open(source).read().replace("\n", " "))
assert options, f"no cl::opt found in {source}"
NUMBERS = ["0", "1", "-1", "3", "4096", "2147483648", "99999999999999999999999",
           "1e309", "-1e309", "nan", "inf", "0x10", "1.5", "", " ", "abc"]
STRINGS = ["", "x", "a" * 10000, "\x7f\x01", "../../../../etc/passwd",
           "/nonexistent/egg", "/dev/null", "/", "%s%n", "$(id)"]


def file_arg():
    """A path: missing, a directory, or a (possibly mutated) seed input."""
    r = rng.random()
    if r < 0.15 or not seeds:
        return rng.choice(["/nonexistent/in.json", "/", "/dev/null", ""])
    data = bytearray(rng.choice(seeds))
    for _ in range(rng.randint(0, 8)):  # byte flips, cuts and splices
        k = rng.random()
        if data and k < 0.5:
            data[rng.randrange(len(data))] = rng.randrange(256)
        elif data and k < 0.7:
            del data[rng.randrange(len(data)):][: rng.randint(1, 64)]
        else:
            pos = rng.randrange(len(data) + 1)
            data[pos:pos] = rng.choice([b"9" * 30, b"-1", b"null", b"[]", b"{}", b"\xff"])
    path = os.path.join(out, "input.json")
    open(path, "wb").write(bytes(data))
    return path


def value(kind):
    if kind == "bool":
        return rng.choice(["", "=true", "=false", "=0", "=1", "=maybe"])
    if kind in ("unsigned", "int", "double", "float", "int64_t", "uint64_t"):
        return "=" + rng.choice(NUMBERS)
    return "=" + (file_arg() if rng.random() < 0.3 else rng.choice(STRINGS))


def argv():
    args = [tool]
    if rng.random() < 0.9:
        args.append(file_arg())
    for _ in range(rng.randint(0, 6)):
        kind, name = rng.choice(options)
        args.append(f"--{name}{value(kind)}")
    if rng.random() < 0.05:
        args.append(rng.choice(["--bogus", "-", "--", "--help-nonexistent"]))
    return args


runs = failures = 0
codes = {}
start = time.time()
while time.time() - start < seconds:
    args = argv()
    runs += 1
    try:
        r = subprocess.run(args, capture_output=True, timeout=30, cwd=scratch,
                           env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
        text = r.stdout + r.stderr
        bad = (r.returncode not in ok_codes or b"Sanitizer" in text
               or b"runtime error" in text or b"Stack dump" in text)
        why = f"exit {r.returncode}"
        codes[r.returncode] = codes.get(r.returncode, 0) + 1
    except subprocess.TimeoutExpired:
        bad, why, text = True, "timeout", b""
    if bad:
        failures += 1
        case = os.path.join(out, f"failure-{failures}")
        os.makedirs(case, exist_ok=True)
        if os.path.exists(os.path.join(out, "input.json")):
            os.replace(os.path.join(out, "input.json"), os.path.join(case, "input.json"))
        open(os.path.join(case, "argv"), "w").write(shlex.join(args) + "\n")
        open(os.path.join(case, "output"), "wb").write(text[-4000:])
        print(f"FAIL ({why}): {shlex.join(args)[:300]}")
print(f"{runs} runs in {time.time() - start:.0f} s, {failures} failures, "
      f"{len(options)} options; exit statuses: "
      + ", ".join(f"{c}: {n}" for c, n in sorted(codes.items())))
sys.exit(1 if failures else 0)
