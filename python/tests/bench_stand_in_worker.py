"""A stand-in for egg.bench.worker in the driver's tests (no GPU): speaks the
worker's protocol and acts by the problem's name: `hang` never answers,
`crash` dies, `fault` reports a fault and exits, anything else is correct
with made-up times (egg twice as fast as eager)."""
import json
import os
import sys
import time
from pathlib import Path


def main():
    results = os.fdopen(int(sys.argv[2]), "w", buffering=1)
    results.write(json.dumps({"hello": {"gpu": "Stand-in GPU", "torch": "0.0"}}) + "\n")
    for line in sys.stdin:
        path = Path(json.loads(line)["path"])
        row = {"problem": path.stem, "level": path.parent.name}
        if "hang" in path.stem:
            time.sleep(3600)
        if "crash" in path.stem:
            print("stand-in: simulated crash", flush=True)
            os._exit(9)
        if "fault" in path.stem:
            row.update(status="fault", reason="simulated illegal address")
            results.write(json.dumps(row) + "\n")
            os._exit(3)
        cached = json.loads(line).get("cached_compile")
        row.update(status="correct", eager_ms=2.0, egg_ms=1.0,
                   compile_ms=(cached or {}).get("compile_ms", 1.5),
                   compile_cached=bool(cached))
        results.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
