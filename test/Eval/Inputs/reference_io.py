"""Writes the arguments of a product for egg-eval --reference-io and checks
its result bitwise against a naive k-loop in Python floats (IEEE doubles:
one multiply, then one add, in the source's order of K).

    reference_io.py write DIR M K N
    reference_io.py check DIR M K N
"""
import random
import struct
import sys
from pathlib import Path


def values(count, seed):
    rng = random.Random(seed)
    # Mixed magnitudes: a sum in another order would round differently.
    return [rng.uniform(-0.5, 0.5) * 2.0 ** rng.randint(-20, 20) for _ in range(count)]


def save(path, data):
    path.write_bytes(struct.pack(f"<{len(data)}d", *data))


mode, folder = sys.argv[1], Path(sys.argv[2])
m, k, n = (int(x) for x in sys.argv[3:6])
a, b = values(m * k, 1), values(k * n, 2)
if mode == "write":
    folder.mkdir(parents=True, exist_ok=True)
    save(folder / "arg0.f64", a)
    save(folder / "arg1.f64", b)
    sys.exit(0)
want = []
for i in range(m):
    for j in range(n):
        acc = 0.0
        for p in range(k):
            acc = acc + a[i * k + p] * b[p * n + j]
        want.append(acc)
raw = (folder / "result0.f64").read_bytes()
got = list(struct.unpack(f"<{len(raw) // 8}d", raw))
bad = sum(1 for g, w in zip(got, want) if struct.pack("<d", g) != struct.pack("<d", w))
print(f"{len(got)} values, {bad} differ from the naive k-loop")
sys.exit(1 if bad or len(got) != len(want) else 0)
