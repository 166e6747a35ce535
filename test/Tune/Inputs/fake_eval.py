#!/usr/bin/env python3
"""A stand-in for egg-eval that speaks its protocol (docs/egg-eval.md) without
a GPU, so the tests can drive egg-tune's GPU path on a CPU machine.

Times are a deterministic function of each launch's block shape (fastest at
256 threads); a manifest slower than --give-up-ms reports "slower". FAKE_EVAL_MODE picks misbehaviour: ok, slow (0.3 s per run),
faulty (every third manifest faults), hang (every third never returns),
garbage (every third writes invalid JSON), crash (every third is killed by a
signal). Each evaluation appends the manifest's hash to FAKE_EVAL_LOG; with
FAKE_EVAL_KILL_PARENT_AT=N, the N-th logged evaluation SIGKILLs its caller
(egg-tune) mid-measurement, a kill that does not depend on the machine's
speed."""
import hashlib, json, math, os, signal, sys, time

args = sys.argv[1:]
if "--device-info" in args:
    print(json.dumps({"name": "Fake GPU", "compute_capability": "9.0",
                      "sm_count": 132, "count": 1}))
    sys.exit(0)
manifest = next(a for a in args if not a.startswith("--"))
if os.environ.get("FAKE_EVAL_ARGS_LOG"):
    with open(os.environ["FAKE_EVAL_ARGS_LOG"], "a") as log:
        log.write(" ".join(a for a in args if a.startswith("--")) + "\n")
out = next(a.split("=", 1)[1] for a in args if a.startswith("--json="))
text = open(manifest).read()
digest = hashlib.sha256(text.encode()).hexdigest()
if os.environ.get("FAKE_EVAL_LOG"):
    with open(os.environ["FAKE_EVAL_LOG"], "a") as log:
        log.write(digest + "\n")
    kill_at = os.environ.get("FAKE_EVAL_KILL_PARENT_AT")
    if kill_at and len(open(os.environ["FAKE_EVAL_LOG"]).read().split()) == int(kill_at):
        os.kill(os.getppid(), signal.SIGKILL)
        sys.exit(1)
mode = os.environ.get("FAKE_EVAL_MODE", "ok")
# Which evaluations misbehave: with FAKE_EVAL_COUNTER (a file counting the
# evaluations), every third from the second on, so that the expert's own
# candidate (the first) always measures; otherwise by the manifest's hash.
counter = os.environ.get("FAKE_EVAL_COUNTER")
if counter:
    os.makedirs(os.path.dirname(counter) or ".", exist_ok=True)
    with open(counter, "a+") as c:
        c.seek(0)
        n = len(c.read().splitlines())
        c.write("x\n")
    unlucky = n % 3 == 1
else:
    unlucky = int(digest[:8], 16) % 3 == 0
if mode == "slow":
    time.sleep(0.3)
if mode == "hang" and unlucky:
    time.sleep(3600)
if mode == "crash" and unlucky:
    os.kill(os.getpid(), signal.SIGSEGV)
if mode == "garbage" and unlucky:
    open(out, "w").write("{ this is not json")
    sys.exit(2)
result = {"format": "egg-eval", "version": 1,
          "device": {"name": "Fake GPU", "compute_capability": "9.0", "sm_count": 132}}
if mode == "faulty" and unlucky:
    result.update(status="fault", reason="CUDA_ERROR_ILLEGAL_ADDRESS (fake)")
    json.dump(result, open(out, "w"))
    sys.exit(2)
steps = [s for f in json.loads(text)["functions"] for s in f["steps"]
         if s.get("kind") == "launch"]
per_kernel, total = [], 0.0
for i, s in enumerate(steps):
    threads = math.prod(s["block"])
    ms = 0.010 + 0.004 * abs(math.log2(threads / 256.0))
    per_kernel.append({"step": i, "kernel": s["kernel"], "median_ms": ms})
    total += ms
give_up = next((float(a.split("=", 1)[1]) for a in args
                if a.startswith("--give-up-ms=")), 0.0)
if give_up > 0 and total > give_up:
    result.update(status="slower", reason=f"a run took {total:.4f} ms (fake)",
                  timing={"mode": "stream", "runs": 1, "median_ms": total,
                          "give_up_ms": give_up})
    json.dump(result, open(out, "w"))
    sys.exit(4)
result.update(status="ok", timing={"mode": "stream", "median_ms": total,
                                   "per_kernel": per_kernel})
json.dump(result, open(out, "w"))
