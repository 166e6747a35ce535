#!/usr/bin/env python3
"""Checks the shared-memory GEMM lowering's knobs on the GPU: each example
matrix product is compiled with the expert's tuning and with variants of it
(copy engine, pipeline stages, tile shapes, padding, vector width), replayed
through a decisions file, and run by egg-eval against the float64 reference,
with egg-eval's cuBLAS baseline alongside.

    scripts/gpu-gemm-variants.py BIN_DIR WORK_DIR [example ...]
    EGG_VARIANTS_MATCH="copy = tma" scripts/gpu-gemm-variants.py ...
    EGG_VARIANTS_ALSO="copy=tma|copy=tma;pipeline=3" scripts/gpu-gemm-variants.py ...

BIN_DIR holds egg-opt, egg-translate and egg-eval. An argument ending in
.mlir is compiled from that path (variants keyed by its stem); EGG_TRIALS
sets egg-eval's correctness trials (default 3); EGG_VARIANTS_MATCH keeps
only the variants whose tuning contains its text; EGG_VARIANTS_ALSO adds
variants to every example, '|' between variants and ';' between the
`knob=value` changes of one. Prints one line per
variant; exits non-zero if any variant fails to compile or to match."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

# Warpgroup MMA (wgmma): 128-byte swizzled tiles of 16-byte pieces.
WGMMA = {"padding": None, "swizzle": "xor128", "vector": "8"}

# Replacements applied to the expert's tuning text, per example.
VARIANTS = {
    "gemm_bias_relu": [
        {"copy": "sync", "pipeline": "1"},
        {"pipeline": "1"},
        {"pipeline": "2"},
        {"padding": "0"},
        {"vector": "1"},
        {"threads": "[16, 16]", "block": "[64, 64]", "thread": "[4, 4]"},
        {"threads": "[16, 16]", "block": "[64, 32]", "thread": "[4, 2]", "vector": "2"},
    ],
    "matmul_f32": [
        {"copy": "sync", "pipeline": "1", "vector": "2"},
        {"threads": "[16, 16]", "block": "[128, 64]", "thread": "[8, 4]",
         "pipeline": "2"},
    ],
    "matmul_transpose_b": [
        {"copy": "sync", "pipeline": "1"},
        {"pipeline": "2", "padding": "1"},
    ],
    "batch_matmul": [
        {"copy": "sync", "pipeline": "1"},
    ],
    # Tensor cores (warp tiles, mma.sync): the four ldmatrix layouts are
    # A k-contiguous / B n-contiguous (matmul_bf16, matmul_f16), both
    # k-contiguous (linear_f16_relu) and both m/n-contiguous (matmul_at_bf16).
    "matmul_bf16": [
        # wgmma: A k-contiguous, B n-contiguous (transposed by wgmma); one
        # and two warpgroups, two m64 instructions per warpgroup, BK 64 and
        # 128 (two swizzle columns of A), synchronous copies.
        dict(WGMMA, threads="[128, 1, 2]", block="[128, 128]", warp="[64, 128]",
             reduction="[64]", pipeline="3"),
        dict(WGMMA, threads="[128, 1, 1]", block="[64, 128]", warp="[64, 128]",
             reduction="[64]", pipeline="2"),
        dict(WGMMA, threads="[128, 2, 1]", block="[128, 256]", warp="[128, 128]",
             reduction="[64]", pipeline="3"),
        dict(WGMMA, threads="[128, 1, 2]", block="[128, 128]", warp="[64, 128]",
             reduction="[128]", pipeline="2"),
        dict(WGMMA, threads="[128, 1, 2]", block="[128, 128]", warp="[64, 128]",
             reduction="[64]", copy="sync", pipeline="1"),
        {"threads": "[32, 2, 2]", "block": "[64, 64]", "warp": "[32, 32]"},
        {"threads": "[32, 1, 2]", "block": "[64, 32]", "warp": "[32, 32]"},
        {"threads": "[32, 2, 2]", "block": "[64, 64]", "warp": "[32, 32]",
         "reduction": "[64]", "pipeline": "2"},
        {"reduction": "[16]", "vector": "4"},
        {"pipeline": "2"},
        {"copy": "sync", "pipeline": "1"},
        {"vector": "4"},
        {"padding": "0"},
        {"threads": "[8, 8]", "warp": None, "thread": "[4, 4]", "vector": "4",
         "copy": "sync", "pipeline": "1"},
    ],
    "matmul_f16": [
        # TMA copies (copy = tma): A K-contiguous, B N-contiguous.
        dict(WGMMA, threads="[128, 1, 2]", block="[128, 128]", warp="[64, 128]",
             reduction="[64]", copy="tma", pipeline="4"),
        dict(WGMMA, threads="[128, 1, 1]", block="[64, 128]", warp="[64, 128]",
             reduction="[64]", copy="tma", pipeline="2"),
        # wgmma with four stages: products in flight across a K step.
        dict(WGMMA, threads="[128, 2, 1]", block="[128, 256]", warp="[128, 128]",
             reduction="[64]", pipeline="4"),
        dict(WGMMA, threads="[128, 1, 2]", block="[128, 256]", warp="[64, 256]",
             reduction="[64]", pipeline="3"),
        {"threads": "[32, 2, 2]", "block": "[128, 128]", "warp": "[64, 64]",
         "pipeline": "2"},
        {"threads": "[32, 4, 2]", "block": "[128, 128]", "warp": "[64, 32]",
         "pipeline": "2"},
        {"threads": "[32, 2, 2]", "block": "[128, 64]", "warp": "[64, 32]"},
        {"threads": "[32, 2, 2]", "block": "[64, 64]", "warp": "[32, 32]"},
        {"threads": "[32, 1, 1]", "block": "[32, 32]", "warp": "[32, 32]"},
    ],
    "linear_f16_relu": [
        # TMA copies, both tiles K-contiguous, the bias + ReLU epilogue.
        dict(WGMMA, threads="[128, 1, 2]", block="[128, 128]", warp="[64, 128]",
             reduction="[64]", copy="tma", pipeline="3"),
        # wgmma with both tiles k-contiguous (B stored [N][K]).
        dict(WGMMA, threads="[128, 1, 2]", block="[128, 128]", warp="[64, 128]",
             reduction="[64]", pipeline="3"),
        dict(WGMMA, threads="[128, 2, 2]", block="[128, 128]", warp="[64, 64]",
             reduction="[64]", pipeline="4"),
        {"threads": "[32, 2, 2]", "block": "[128, 128]", "warp": "[64, 64]",
         "pipeline": "2"},
        {"threads": "[32, 2, 2]", "block": "[64, 64]", "warp": "[32, 32]"},
        {"copy": "sync", "pipeline": "1"},
        {"vector": "2", "padding": "16"},
    ],
    # Partial last tiles (M, N of 1000, 500, 300, 520): every copy engine
    # and product form, guarded stores, the staged wgmma epilogue.
    "matmul_odd_mn_bf16": [
        # TMA boxes past the edge, zero-filled by the copy engine.
        dict(WGMMA, threads="[128, 1, 2]", block="[128, 128]", warp="[64, 128]",
             reduction="[64]", copy="tma", pipeline="4"),
        dict(WGMMA, threads="[128, 2, 1]", block="[128, 256]", warp="[128, 128]",
             reduction="[64]", pipeline="4"),
        dict(WGMMA, threads="[128, 1, 1]", block="[64, 128]", warp="[64, 128]",
             reduction="[64]", copy="sync", pipeline="1"),
        {"threads": "[32, 2, 2]", "block": "[128, 128]", "warp": "[64, 64]",
         "reduction": "[32]", "swizzle": None, "padding": "8",
         "pipeline": "3"},
        {"threads": "[32, 2, 2]", "block": "[64, 64]", "warp": "[32, 32]",
         "reduction": "[32]", "swizzle": None, "padding": "8", "copy": "sync",
         "pipeline": "1"},
    ],
    "linear_odd_relu_f32": [
        {"copy": "sync", "pipeline": "1"},
        {"threads": "[16, 16]", "block": "[128, 128]", "thread": "[8, 8]",
         "pipeline": "2"},
    ],
    "matmul_odd_acc_f16": [
        {"copy": "sync", "pipeline": "1"},
        dict(WGMMA, threads="[128, 1, 1]", block="[64, 128]", warp="[64, 128]",
             reduction="[64]", pipeline="3"),
        dict(WGMMA, threads="[128, 1, 1]", block="[64, 128]", warp="[64, 128]",
             reduction="[64]", copy="tma", pipeline="3"),
    ],
    # Large products (bench/gemm problems' MLIR): tile, warp and stage
    # choices for the expert's rule (earlier probes: docs/benchmarks.md).
    "matmul_bf16_2048": [
        # TMA copies in the expert's shape, four and three stages.
        dict(WGMMA, threads="[128, 2, 1]", block="[128, 256]", warp="[128, 128]",
             reduction="[64]", copy="tma", pipeline="4"),
        dict(WGMMA, threads="[128, 2, 1]", block="[128, 256]", warp="[128, 128]",
             reduction="[64]", copy="tma", pipeline="3"),
        # The expert: wgmma, 128x256 tiles as two 128x128 warpgroup pieces,
        # four stages of BK 64 (products in flight). Other shapes:
        dict(WGMMA, threads="[128, 1, 2]", block="[128, 256]", warp="[64, 256]",
             reduction="[64]", pipeline="4"),
        dict(WGMMA, threads="[128, 1, 1]", block="[128, 128]", warp="[128, 128]",
             reduction="[64]", pipeline="4"),
        dict(WGMMA, threads="[128, 1, 2]", block="[256, 128]", warp="[128, 128]",
             reduction="[64]", pipeline="4"),
        dict(WGMMA, threads="[128, 2, 1]", block="[128, 256]", warp="[128, 128]",
             reduction="[64]", pipeline="3"),
    ],
    # bench/gemm/matmul_f16_wide (4096 x 4096 x 1024): TMA copies.
    "matmul_f16_wide": [
        dict(WGMMA, threads="[128, 2, 1]", block="[128, 256]", warp="[128, 128]",
             reduction="[64]", copy="tma", pipeline="4"),
    ],
    # K = 1024 (16 K tiles): does a second block per SM, overlapping one
    # block's prologue and epilogue with another's main loop, pay?
    "matmul_bf16_k1024": [
        dict(WGMMA, threads="[128, 1, 2]", block="[128, 128]", warp="[64, 128]",
             reduction="[64]", pipeline="3"),
        dict(WGMMA, threads="[128, 1, 2]", block="[128, 128]", warp="[64, 128]",
             reduction="[64]", pipeline="4"),
        dict(WGMMA, threads="[128, 1, 2]", block="[128, 128]", warp="[64, 128]",
             reduction="[64]", pipeline="2"),
    ],
    # bench/gemm/matmul_skinny_bf16 (M = 32, N = K = 4096): 32x32 tiles
    # give 128 blocks, one per SM, each streaming a 32-column slab of B.
    # Deeper K steps (more bytes in flight per SM) and narrower N tiles
    # (more blocks).
    "matmul_skinny_bf16": [
        {"reduction": "[64]", "pipeline": "4"},
        {"reduction": "[128]", "pipeline": "4"},
        {"reduction": "[256]", "pipeline": "3"},
        {"reduction": "[128]", "pipeline": "3"},
        {"threads": "[32, 1, 2]", "block": "[32, 16]", "warp": "[16, 16]",
         "reduction": "[128]", "pipeline": "4"},
        {"threads": "[32, 1, 2]", "block": "[32, 16]", "warp": "[16, 16]",
         "reduction": "[256]", "pipeline": "4"},
        {"threads": "[32, 1, 1]", "block": "[32, 32]", "warp": "[32, 32]",
         "reduction": "[128]", "pipeline": "4"},
        {"threads": "[32, 2, 1]", "block": "[32, 64]", "warp": "[32, 32]",
         "reduction": "[128]", "pipeline": "4"},
    ],
    # bench/gemm/matmul_oddk_f16 (K = 1000): the last of 16 K steps of 64 is
    # partial (zero-filled past K).
    "matmul_oddk_f16": [
        # TMA: the partial last K step is zero-filled by the copy engine.
        dict(WGMMA, threads="[128, 2, 1]", block="[128, 256]", warp="[128, 128]",
             reduction="[64]", copy="tma", pipeline="4"),
        dict(WGMMA, threads="[128, 1, 2]", block="[128, 128]", warp="[64, 128]",
             reduction="[64]", pipeline="4"),
        dict(WGMMA, threads="[128, 2, 1]", block="[128, 256]", warp="[128, 128]",
             reduction="[64]", pipeline="3"),
        {"threads": "[32, 2, 2]", "block": "[128, 128]", "warp": "[64, 64]",
         "reduction": "[32]", "padding": "8", "swizzle": None, "pipeline": "3"},
    ],
    "matmul_at_bf16": [
        # TMA copies, A stored [K][M] (M-contiguous, transposed by wgmma).
        dict(WGMMA, threads="[128, 1, 2]", block="[128, 128]", warp="[64, 128]",
             reduction="[64]", copy="tma", pipeline="3"),
        dict(WGMMA, threads="[128, 1, 2]", block="[128, 128]", warp="[64, 128]",
             reduction="[64]", pipeline="3"),
        {"threads": "[32, 2, 2]", "block": "[64, 64]", "warp": "[32, 32]"},
        {"copy": "sync", "pipeline": "1", "vector": "2"},
        {"reduction": "[64]", "pipeline": "2"},
    ],
}


def set_knob(tuning, key, value):
    """Replaces `key = value` in a #egg.tuning, appends it, or (value None)
    removes it."""
    pattern = re.compile(rf"\b{key} = (\[[^\]]*\]|[a-z_0-9]+)")
    if value is None:
        return re.sub(rf",? \b{key} = (\[[^\]]*\]|[a-z_0-9]+)", "", tuning)
    if pattern.search(tuning):
        return pattern.sub(f"{key} = {value}", tuning)
    return tuning[:-1] + f", {key} = {value}>"


def run(cmd, log):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    log.write_text(r.stdout + r.stderr)
    return r.returncode


def main():
    bin_dir, work = Path(sys.argv[1]), Path(sys.argv[2])
    names = sys.argv[3:] or list(VARIANTS)
    work.mkdir(parents=True, exist_ok=True)
    failures = 0
    print(f"{'example':20s} {'status':8s} {'ms':>9s} {'cuBLAS':>9s}  tuning")
    trials = os.environ.get("EGG_TRIALS", "3")
    # EGG_VARIANTS_MATCH: only the variants whose tuning contains this text
    # (and the expert's own).
    match = os.environ.get("EGG_VARIANTS_MATCH", "")
    also = [dict(change.split("=", 1) for change in variant.split(";"))
            for variant in os.environ.get("EGG_VARIANTS_ALSO", "").split("|")
            if variant]
    for name in names:
        # An example's name, or the path of any .mlir (variants by stem).
        source = Path(name) if name.endswith(".mlir") else Path("examples") / f"{name}.mlir"
        name = source.stem
        record = work / f"{name}.expert.json"
        if run([str(bin_dir / "egg-opt"), str(source),
                f"--egg-pipeline=chip=sm_90a record={record}", "-o",
                str(work / f"{name}.expert.mlir")], work / f"{name}.log"):
            print(f"{name:20s} compile-failed (expert)")
            failures += 1
            continue
        decisions = json.loads(record.read_text())
        expert = decisions["kernels"][0]["tuning"]
        for i, variant in enumerate([{}] + VARIANTS.get(name, []) + also):
            tuning = expert
            for key, value in variant.items():
                tuning = set_knob(tuning, key, value)
            if i and match and match not in tuning:
                continue
            tag = f"{name}.v{i}"
            decisions["kernels"][0]["tuning"] = tuning
            path = work / f"{tag}.json"
            path.write_text(json.dumps(decisions))
            mlir, manifest = work / f"{tag}.mlir", work / f"{tag}.manifest.json"
            ok = not run([str(bin_dir / "egg-opt"), str(source),
                          f"--egg-pipeline=chip=sm_90a agent=replay decisions={path}",
                          "-o", str(mlir)], work / f"{tag}.opt.log")
            ok = ok and not run([str(bin_dir / "egg-translate"), "--egg-to-manifest",
                                 str(mlir), "-o", str(manifest)],
                                work / f"{tag}.translate.log")
            if not ok:
                print(f"{name:20s} {'compile':8s} {'-':>9s} {'-':>9s}  {tuning}")
                print("   " + (work / f"{tag}.opt.log").read_text()[-400:])
                failures += 1
                continue
            result = work / f"{tag}.eval.json"
            run([str(bin_dir / "egg-eval"), str(manifest), f"--source={source}",
                 f"--json={result}", f"--trials={trials}"], work / f"{tag}.eval.log")
            try:
                r = json.loads(result.read_text())
            except (OSError, ValueError):
                r = {"status": "no-result"}
            blas = r.get("baselines", {}).get("cublas")
            blas_ms = blas.get("median_ms") if isinstance(blas, dict) else None
            ms = r.get("timing", {}).get("median_ms")
            print(f"{name:20s} {r['status']:8s} {ms or 0:9.4f} {blas_ms or 0:9.4f}  {tuning}")
            if r["status"] != "ok":
                failures += 1
                print("   " + str(r.get("reason", ""))[:300])
    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
