"""Arguments of Inputs/scan.mlir for egg-eval --reference-io, and its
results printed a row a line.

    scan_io.py write DIR
    scan_io.py print DIR
"""
import struct
import sys
from pathlib import Path

mode, folder = sys.argv[1], Path(sys.argv[2])
if mode == "write":
    folder.mkdir(parents=True, exist_ok=True)
    rows = [[1, 2, 3, 4], [0.5, 2, -1, 3], [10, 0, 5, 1]]
    values = [float(v) for row in rows for v in row]
    (folder / "arg0.f64").write_bytes(struct.pack("<12d", *values))
    sys.exit(0)
for result in sorted(folder.glob("result*.f64")):
    raw = result.read_bytes()
    got = struct.unpack(f"<{len(raw) // 8}d", raw)
    for r in range(0, len(got), 4):
        print(" ".join(f"{v:g}" for v in got[r:r + 4]))
