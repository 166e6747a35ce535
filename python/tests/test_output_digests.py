"""The decisions and PTX of every example and bench problem match
test/golden/output-digests.json (scripts/output-digests.py): a refactoring
changes no output. A change meant to alter decisions or code rewrites the
file with `scripts/output-digests.py --write`, and the review sees which
problems moved."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "output-digests.py"


def test_outputs_match_golden_digests():
    tools = os.environ.get("EGG_TOOLS")
    if not tools or not Path(tools, "egg-opt").exists():
        pytest.skip("EGG_TOOLS does not name a build with egg-opt")
    r = subprocess.run([sys.executable, str(SCRIPT), "--check",
                        "--jobs", str(os.cpu_count() or 1)],
                       capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stdout + r.stderr
    # The check covered the examples and the bench problems, not an empty set.
    assert " of " in r.stdout and int(r.stdout.split(" of ")[-1].split()[0]) >= 100
