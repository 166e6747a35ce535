"""Arguments of Inputs/gather.mlir for egg-eval --reference-io, and its
result printed a row a line.

    gather_io.py write DIR
    gather_io.py print DIR
"""
import struct
import sys
from pathlib import Path

mode, folder = sys.argv[1], Path(sys.argv[2])
if mode == "write":
    folder.mkdir(parents=True, exist_ok=True)
    source = [float(10 * r + c) for r in range(4) for c in range(3)]
    index = [2.0, 0.0, 3.0, 1.0, 7.0]  # 7: past the source's 4 rows.
    (folder / "arg0.f64").write_bytes(struct.pack("<12d", *source))
    (folder / "arg1.f64").write_bytes(struct.pack("<5d", *index))
    sys.exit(0)
raw = (folder / "result0.f64").read_bytes()
got = struct.unpack(f"<{len(raw) // 8}d", raw)
for r in range(0, len(got), 3):
    print(" ".join(f"{v:g}" for v in got[r:r + 3]))
