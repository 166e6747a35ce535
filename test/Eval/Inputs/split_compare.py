"""egg-split-k checked on the CPU: writes random arguments for
egg-eval --reference-io, then compares the float64 results of the whole and
the split function (the same sums in another order).

    split_compare.py write DIR SHAPE...      (SHAPE: 64x1024, or 64+3 for
                                              normal(3,1) values)
    split_compare.py check WHOLE_DIR SPLIT_DIR
"""
import math
import random
import struct
import sys
from pathlib import Path

mode = sys.argv[1]
if mode == "write":
    folder = Path(sys.argv[2])
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(7)
    for i, arg in enumerate(sys.argv[3:]):
        shape, _, mean = arg.partition("+")
        n = math.prod(int(d) for d in shape.split("x"))
        data = [rng.gauss(float(mean or 0), 1.0) for _ in range(n)]
        (folder / f"arg{i}.f64").write_bytes(struct.pack(f"<{n}d", *data))
    sys.exit(0)
whole, split = Path(sys.argv[2]), Path(sys.argv[3])
worst, count = 0.0, 0
for path in sorted(whole.glob("result*.f64")):
    raw_a, raw_b = path.read_bytes(), (split / path.name).read_bytes()
    a = struct.unpack(f"<{len(raw_a) // 8}d", raw_a)
    b = struct.unpack(f"<{len(raw_b) // 8}d", raw_b)
    if len(a) != len(b):
        print(f"{path.name}: {len(a)} values against {len(b)}")
        sys.exit(1)
    scale = max(1.0, max(abs(x) for x in a))
    worst = max([worst] + [abs(x - y) / scale for x, y in zip(a, b)])
    count += len(a)
ok = count > 0 and worst < 1e-12
if len(sys.argv) > 4:  # Also say how often the first argument's value won.
    raw_a = (whole / "result0.f64").read_bytes()
    init = (whole / f"arg{sys.argv[4]}.f64").read_bytes()
    a = struct.unpack(f"<{len(raw_a) // 8}d", raw_a)
    c = struct.unpack(f"<{len(init) // 8}d", init)
    won = sum(1 for x, y in zip(a, c) if x == y)
    print(f"the initial value is the result in {won} of {len(a)}: "
          f"{'both' if 0 < won < len(a) else 'not both'} sides matter")
print(f"{count} values, largest difference {'below' if ok else 'at'} "
      f"{'1e-12' if ok else worst} of the largest value")
sys.exit(0 if ok else 1)
