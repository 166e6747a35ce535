#!/usr/bin/env python3
"""Reads egg-tune's outputs for the lit tests: the report's key facts and the
records' consistency (one row per candidate, runs finished or not)."""
import collections, json, sqlite3, sys

def report(outdir):
    r = json.load(open(f"{outdir}/report.json"))
    print("format:", r["format"], r["version"])
    print("estimate:", r["estimate"])
    print("check:", r.get("check"))
    print("replay_identical:", r["replay_identical"])
    f = r["function"]
    print("function improved or equal:", f["best_ms"] <= f["initial_ms"])
    for k in r["kernels"]:
        t = k["trajectory"]
        monotone = all(b["best_ms"] <= a["best_ms"] for a, b in zip(t, t[1:])
                       if a["best_ms"] >= 0 and b["best_ms"] >= 0)
        print(f"kernel {k['name']} {k['class']} candidates={k['candidates']} "
              f"trajectory={len(t)} monotone={monotone} "
              f"best<=initial={k['best']['time_ms'] <= k['initial']['time_ms']}")
    html = open(f"{outdir}/report.html").read()
    print("html embeds data:", '"egg-tune-report"' in html and "{{EGG" not in html)

def db(path):
    c = sqlite3.connect(path)
    rows = c.execute("SELECT fingerprint, device, structure, tuning FROM candidates").fetchall()
    print(f"rows: {len(rows)} unique: {len(set(rows))}")
    statuses = collections.Counter(s for (s,) in c.execute("SELECT status FROM candidates"))
    print("statuses:", " ".join(f"{k}={v}" for k, v in sorted(statuses.items())))
    runs = c.execute("SELECT status FROM runs ORDER BY id").fetchall()
    print("runs:", " ".join(s for (s,) in runs))
    return len(rows)

def resume(path, log):
    rows = db(path)
    evals = [l.strip() for l in open(log) if l.strip()]
    repeats = len(evals) - len(set(evals))
    # Only the evaluation in flight when the first run was killed may repeat.
    print("evaluations:", len(evals), "re-measured at most one:", repeats <= 1)
    print("every row evaluated:", len(set(evals)) >= rows)

if __name__ == "__main__":
    {"report": report, "db": db, "resume": resume}[sys.argv[1]](*sys.argv[2:])
