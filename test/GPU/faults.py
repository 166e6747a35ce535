#!/usr/bin/env python3
"""egg-eval must catch broken kernels, each with the right reason, and
check a function whose inputs have a domain (sqrt) on inputs inside it.

Compiles test/GPU/Inputs/scale.mlir (y = 2x), then swaps the kernel's PTX
for hand-written variants with the same entry point and parameters, and runs
egg-eval on each. GPU only: run it on the device (scripts/gpu-check.sh).

    faults.py BIN_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys

BIN, WORK = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "Inputs", "scale.mlir")
os.makedirs(WORK, exist_ok=True)

PTX = """.version 8.0
.target sm_90a
.address_size 64
.visible .entry {name}(.param .u64 p0, .param .u64 p1)
{{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<4>;
  ld.param.u64 %rd1, [p0];
  ld.param.u64 %rd2, [p1];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  mul.wide.s32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
{body}
  ret;
}}
"""

GOOD = """  ld.global.f32 %f1, [%rd4];
  mul.f32 %f2, %f1, 0f40000000;
  st.global.f32 [%rd5], %f2;"""

VARIANTS = {
    # name: (body, expected status, words the reason must contain)
    "good": (GOOD, "ok", ""),
    "wrong": (GOOD.replace("0f40000000", "0f40400000"), "incorrect",
              "relative error"),
    "noop": ("", "incorrect", "never written"),
    "half_written": ("  setp.ge.s32 %p1, %r4, 524288;\n  @%p1 ret;\n" + GOOD,
                     "incorrect", "never written"),
    "writes_input": (GOOD + "\n  st.global.f32 [%rd4], %f2;", "incorrect",
                     "input 0 was modified"),
    "out_of_bounds": ("  add.s64 %rd4, %rd4, 1099511627776;\n" + GOOD,
                      "fault", "ILLEGAL_ADDRESS"),
    "hang": ("LOOP:\n  bra.uni LOOP;", "timeout", "did not finish"),
    "trap": ("  trap;", "fault", "CUDA_ERROR"),
    # Shared memory beyond the SM's 227 KiB: declared in the kernel (the
    # module does not load) or asked for at launch (refused); both end in a
    # clean error, never a launch on a half-set-up context.
    "smem_static": ("  .shared .align 4 .b8 egg_big[262144];\n"
                    "  st.shared.f32 [egg_big], %f1;\n" + GOOD, "error",
                    "loading module"),
    "smem_dynamic": (GOOD, "error", "shared memory limit"),
}
# Variants launched with this much dynamic shared memory.
SHARED_BYTES = {"smem_dynamic": 1 << 20}


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    gpu = os.path.join(WORK, "scale.gpu.mlir")
    manifest_path = os.path.join(WORK, "scale.manifest.json")
    for cmd in ([f"{BIN}/egg-opt", SOURCE, "--egg-pipeline", "-o", gpu],
                [f"{BIN}/egg-translate", "--egg-to-manifest", gpu, "-o",
                 manifest_path]):
        r = run(cmd)
        if r.returncode:
            print("FAIL setup:", r.stderr)
            return 1
    manifest = json.load(open(manifest_path))
    (step,) = manifest["functions"][0]["steps"]
    # The hand-written kernels take one element per thread, 256 threads per
    # block, whatever launch shape the compiler chose for its own kernel.
    step["grid"], step["block"] = [1048576 // 256, 1, 1], [256, 1, 1]
    failures = 0
    for name, (body, status, words) in VARIANTS.items():
        m = json.loads(json.dumps(manifest))
        m["modules"][0]["ptx"] = PTX.format(name=step["kernel"], body=body)
        if name in SHARED_BYTES:
            m["functions"][0]["steps"][0]["shared_bytes"] = SHARED_BYTES[name]
        path = os.path.join(WORK, f"{name}.manifest.json")
        out = os.path.join(WORK, f"{name}.result.json")
        json.dump(m, open(path, "w"))
        r = run([f"{BIN}/egg-eval", path, f"--source={SOURCE}",
                 f"--json={out}", "--timeout=3", "--timing=false"])
        result = json.load(open(out)) if os.path.exists(out) else {}
        got, reason = result.get("status"), result.get("reason", "")
        ok = got == status and words in reason
        failures += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name:14s} status={got} "
              f"exit={r.returncode} reason={reason[:100]!r}")
    # A function defined for non-negative inputs only: trials whose
    # distribution reaches below zero draw again from uniform(0.5,2) and say
    # so; the compiled kernel passes every trial.
    root = os.path.join(HERE, "Inputs", "sqrt.mlir")
    gpu = os.path.join(WORK, "sqrt.gpu.mlir")
    path = os.path.join(WORK, "sqrt.manifest.json")
    out = os.path.join(WORK, "sqrt.result.json")
    for cmd in ([f"{BIN}/egg-opt", root, "--egg-pipeline", "-o", gpu],
                [f"{BIN}/egg-translate", "--egg-to-manifest", gpu, "-o", path],
                [f"{BIN}/egg-eval", path, f"--source={root}", f"--json={out}",
                 "--trials=5", "--timing=false"]):
        run(cmd)
    result = json.load(open(out)) if os.path.exists(out) else {}
    trials = (result.get("correctness") or {}).get("trials", [])
    retried = [t["distribution"] for t in trials
               if "left the function's domain" in t.get("distribution", "")]
    ok = (result.get("status") == "ok" and len(trials) == 5 and
          len(retried) == 4 and all(t.get("pass") for t in trials))
    failures += not ok
    print(f"{'PASS' if ok else 'FAIL'} {'domain_retry':14s} "
          f"status={result.get('status')} retried={retried[:1]}")
    total = len(VARIANTS) + 1
    print(f"{total - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
