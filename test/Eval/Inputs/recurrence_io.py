"""Arguments of Inputs/recurrence.mlir for egg-eval --reference-io, and a
check of its results against the same GRU computed here in Python floats.

    recurrence_io.py write DIR
    recurrence_io.py check DIR
"""
import math
import random
import struct
import sys
from pathlib import Path

T, B, H, G = 5, 2, 3, 3
mode, folder = sys.argv[1], Path(sys.argv[2])
rng = random.Random(7)
x = [rng.uniform(-1, 1) for _ in range(T * B * G * H)]
w = [rng.uniform(-1, 1) for _ in range(H * G * H)]
b = [rng.uniform(-1, 1) for _ in range(G * H)]
h0 = [rng.uniform(-1, 1) for _ in range(B * H)]
if mode == "write":
    folder.mkdir(parents=True, exist_ok=True)
    for i, values in enumerate((x, w, b, h0)):
        (folder / f"arg{i}.f64").write_bytes(struct.pack(f"<{len(values)}d", *values))
    sys.exit(0)


def sigmoid(v):
    return 1 / (1 + math.exp(-v))


h = [h0[r * H:(r + 1) * H] for r in range(B)]
sequence = [[None] * B for _ in range(T)]
for t in reversed(range(T)):
    new = []
    for r in range(B):
        gates = [sum(h[r][k] * w[k * G * H + c] for k in range(H)) + b[c] for c in range(G * H)]
        xs = x[(t * B + r) * G * H:(t * B + r + 1) * G * H]
        row = []
        for j in range(H):
            rr = sigmoid(xs[j] + gates[j])
            z = sigmoid(xs[H + j] + gates[H + j])
            n = math.tanh(xs[2 * H + j] + rr * gates[2 * H + j])
            row.append((1 - z) * n + z * h[r][j])
        new.append(row)
        sequence[t][r] = row
    h = new
want = [[v for r in range(B) for v in sequence[t][r]] for t in range(T)]
want = [v for step in want for v in step], [v for row in h for v in row]
for i, expected in enumerate(want):
    raw = (folder / f"result{i}.f64").read_bytes()
    got = struct.unpack(f"<{len(raw) // 8}d", raw)
    worst = max(abs(g - e) for g, e in zip(got, expected))
    print(f"result {i}: {len(got)} values, {'agree' if len(got) == len(expected) and worst < 1e-12 else 'DIFFER'}")
