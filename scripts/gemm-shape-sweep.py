#!/usr/bin/env python3
"""Compiles random matrix products through the whole pipeline (expert
agent) and, where ptxas is available, assembles them for sm_90a: every
valid product must compile without an error and without spills.

    scripts/gemm-shape-sweep.py BIN_DIR [--seed S] [--count N] [--work DIR]

Shapes mix odd and power-of-two M, N, K (1 to 4096), f32/bf16/f16 operands
(f32 accumulation), transposed operands, batches and modules that allow
TF32. Prints one line per product (its tuning, or what went wrong) and a
summary; exits non-zero if any product fails. No GPU needed."""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

DIMS = [1, 3, 7, 16, 31, 32, 33, 64, 96, 100, 128, 129, 192, 255, 256, 384,
        500, 512, 640, 1000, 1024, 1536, 2048, 3072, 4096]


def product(rng):
    """MLIR text of one random product and a description of it."""
    m, n, k = (rng.choice(DIMS) for _ in range(3))
    batch = rng.choice([0, 0, 0, 2, 3])
    dt = rng.choice(["f32", "f32", "bf16", "f16"])
    ta, tb = rng.random() < 0.3, rng.random() < 0.4
    tf32 = dt == "f32" and rng.random() < 0.4
    pre, b, o = (f"{batch}x", "d0, ", 1) if batch else ("", "", 0)
    d = [f"d{j + o}" for j in range(3)]
    a_shape = f"{pre}{k}x{m}" if ta else f"{pre}{m}x{k}"
    b_shape = f"{pre}{n}x{k}" if tb else f"{pre}{k}x{n}"
    c_shape = f"{pre}{m}x{n}"
    a_map = f"({b}{d[2]}, {d[0]})" if ta else f"({b}{d[0]}, {d[2]})"
    b_map = f"({b}{d[1]}, {d[2]})" if tb else f"({b}{d[2]}, {d[1]})"
    loops = ", ".join(f"d{j}" for j in range(3 + o))
    iterators = '"parallel", ' * (2 + o) + '"reduction"'
    if dt == "f32":
        mul = "%t = arith.mulf %x, %y : f32"
        args = "%x: f32, %y: f32"
    else:
        mul = (f"%xe = arith.extf %x : {dt} to f32\n"
               f"    %ye = arith.extf %y : {dt} to f32\n"
               "    %t = arith.mulf %xe, %ye : f32")
        args = f"%x: {dt}, %y: {dt}"
    attr = " attributes {egg.allow_tf32}" if tf32 else ""
    text = f"""module{attr} {{
func.func @p(%a: tensor<{a_shape}x{dt}>, %b: tensor<{b_shape}x{dt}>) -> tensor<{c_shape}xf32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{c_shape}xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<{c_shape}xf32>) -> tensor<{c_shape}xf32>
  %g = linalg.generic {{indexing_maps = [affine_map<({loops}) -> {a_map}>, affine_map<({loops}) -> {b_map}>, affine_map<({loops}) -> ({b}{d[0]}, {d[1]})>], iterator_types = [{iterators}]}} ins(%a, %b : tensor<{a_shape}x{dt}>, tensor<{b_shape}x{dt}>) outs(%f : tensor<{c_shape}xf32>) {{
  ^bb0({args}, %acc: f32):
    {mul}
    %s = arith.addf %acc, %t : f32
    linalg.yield %s : f32
  }} -> tensor<{c_shape}xf32>
  return %g : tensor<{c_shape}xf32>
}}
}}
"""
    what = (f"{pre}{m}x{n}x{k} {dt}{' tf32' if tf32 else ''}"
            f"{' A^T' if ta else ''}{' B^T' if tb else ''}")
    return text, what


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--work")
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="egg-sweep-")
    os.makedirs(work, exist_ok=True)
    ptxas = shutil.which("ptxas") or (
        "/usr/local/cuda/bin/ptxas"
        if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
    rng = random.Random(args.seed)
    failures = 0
    for i in range(args.count):
        text, what = product(rng)
        base = os.path.join(work, f"p{i}")
        with open(base + ".mlir", "w") as f:
            f.write(text)
        run = lambda cmd: subprocess.run(cmd, capture_output=True, text=True,
                                         timeout=300)
        r = run([f"{args.bin}/egg-opt", base + ".mlir",
                 "--egg-pipeline=chip=sm_90a", "-o", base + ".gpu.mlir"])
        if r.returncode == 0:
            r = run([f"{args.bin}/egg-translate", "--egg-to-ptx", f"--egg-ptx-dir={base}.ptx",
                     base + ".gpu.mlir", "-o", base + ".ptx.list"])
        if r.returncode != 0:
            failures += 1
            kind = "CRASH" if r.returncode < 0 or r.returncode > 1 else "ERROR"
            first = (r.stderr.strip().splitlines() or [""])[0]
            print(f"{kind} {what}: {first[:300]}")
            continue
        tuning = next((line.split("egg.tuning = ")[1].split(">")[0] + ">"
                       for line in open(base + ".gpu.mlir")
                       if "egg.tuning = " in line), "?")
        if ptxas:
            # One PTX file per kernel module, as egg-translate listed them.
            bad = []
            for path in open(base + ".ptx.list").read().split():
                p = run([ptxas, "-arch=sm_90a", "-v", path, "-o", os.devnull])
                out = p.stdout + p.stderr
                if p.returncode != 0:
                    bad.append(out.strip().splitlines()[0])
                bad += [l.strip() for l in out.splitlines() if "spill" in l
                        and " 0 bytes spill stores, 0 bytes spill loads" not in l]
            if bad:
                failures += 1
                print(f"PTXAS {what}: {tuning}: {bad[0][:200]}")
                continue
        print(f"ok {what}: {tuning}")
    print(f"{args.count - failures} of {args.count} products compiled"
          f"{' and assembled' if ptxas else ''} (seed {args.seed}); "
          f"work in {work}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
