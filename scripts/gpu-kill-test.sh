#!/usr/bin/env bash
# On the GPU host: egg-tune with the real egg-eval under kills. The
# evaluator is killed (SIGKILL) in the middle of a candidate, then egg-tune
# itself, then egg-tune is started again on the same records. Checks that
# the killed evaluation is recorded as a failure and the run goes on, and
# that after the resume every candidate has exactly one row with a final
# status (docs/reliability.md). Needs the bundle in .bundle/.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
export PATH=/usr/local/cuda/bin:$PATH
tools=$(mktemp -d)
tar -C "$tools" -xJf "$here/.bundle/egg-tools-linux-x86_64.tar.xz"
bin=$tools/egg-tools/bin
work=$(mktemp -d)
db=$work/out/tune.sqlite
tune=("$bin/egg-tune" "$here/examples/layernorm.mlir" -o "$work/out"
  --evaluator=gpu --agent=search --max-candidates=16 --batch=1 -j 1 --quiet)
rows() { # rows with a final status
  python3 -c "import sqlite3,sys
try: print(sqlite3.connect(sys.argv[1]).execute(\"SELECT count(*) FROM candidates WHERE status IS NOT NULL AND status != ''\").fetchone()[0])
except Exception: print(0)" "$db"
}
wait_rows() { # n seconds
  for _ in $(seq $(( $2 * 5 ))); do
    [[ $(rows) -ge $1 ]] && return 0
    sleep 0.2
  done
  return 1
}
"${tune[@]}" >"$work/first.log" 2>&1 &
tuner=$!
wait_rows 3 120 || echo "egg-tune recorded fewer than 3 candidates in 120 s"
# The evaluator in flight: wait until one runs, then kill it.
for _ in $(seq 100); do pgrep -P $tuner -x egg-eval >/dev/null && break; sleep 0.05; done
before=$(rows)
pkill -9 -P $tuner -x egg-eval && echo "killed egg-eval with $before candidates recorded"
wait_rows $((before + 3)) 120 || echo "egg-tune did not go on after the evaluator's death"
kill -9 $tuner 2>/dev/null && echo "killed egg-tune with $(rows) candidates recorded"
wait $tuner 2>/dev/null
timeout 400 "${tune[@]}" >"$work/second.log" 2>&1
echo "resumed egg-tune: exit $?"
tail -5 "$work/second.log"
python3 - "$db" <<'PY'
import collections, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
rows = c.execute("SELECT fingerprint, device, structure, tuning FROM candidates").fetchall()
print(f"rows: {len(rows)} unique: {len(set(rows))}")
st = collections.Counter(s for (s,) in c.execute("SELECT status FROM candidates"))
print("statuses:", " ".join(f"{k}={v}" for k, v in sorted(st.items(), key=str)))
print("runs:", " ".join(s for (s,) in c.execute("SELECT status FROM runs ORDER BY id")))
for (s, r) in c.execute("SELECT status, substr(result, 1, 160) FROM candidates "
                        "WHERE status NOT IN ('correct', 'ok')"):
    print("failure:", s, r)
PY
