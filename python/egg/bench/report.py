"""The table and summary of a ``python -m egg.bench`` run (JSON and markdown).

fast_p is KernelBench's: the fraction of all problems that are correct and
more than p times as fast as the baseline (fast_0: correct at all). A
problem that is not correct counts as not fast and stays in the
denominator, whatever stopped it (unsupported op, compile error, fault,
timeout, or not run yet). Mean speedups are given two ways: over the
correct problems alone, and over every problem with the ones egg does not
run correctly at 1.0x (what ``torch.compile(backend="egg")`` gives, since
PyTorch runs what EGG does not take)."""
import math
import re
from collections import Counter

STATUSES = ("correct", "wrong", "unsupported", "compile-error", "fault", "timeout", "error",
            "not run")
FAST_P = (0.0, 1.0, 2.0)


def best_ms(row):
    times = [t for t in (row.get("egg_ms"), row.get("tuned_ms")) if t]
    return min(times) if row.get("status") == "correct" and times else None


def speedup(row, baseline):
    b, t = row.get(baseline), best_ms(row)
    return b / t if b and t else None


def _geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def _mean(xs):
    return sum(xs) / len(xs) if xs else None


def summarize(rows):
    """Summary of `rows` (every problem asked for, those not run included)."""
    n = len(rows)
    s = {"problems": n, "statuses": dict(Counter(r.get("status") or "not run" for r in rows))}
    s["correct"] = s["statuses"].get("correct", 0)
    for base, label in (("eager_ms", "eager"), ("compile_ms", "compile")):
        ups = [speedup(r, base) for r in rows]
        for p in FAST_P:
            s[f"fast_{p:g}_{label}"] = (sum(1 for u in ups if u is not None and u > p) / n) if n else None
        ok = [u for u in ups if u is not None]
        s[f"geomean_{label}_correct"] = _geo(ok)
        s[f"mean_{label}_correct"] = _mean(ok)
        # Problems egg does not run correctly count as PyTorch's own time.
        fallback = [u if u is not None else 1.0 for u in ups]
        s[f"geomean_{label}_all"] = _geo(fallback)
        s[f"mean_{label}_all"] = _mean(fallback)
        s[f"timed_{label}"] = len(ok)
    return s


def unsupported_ops(rows):
    """The ops that stop problems at import, by how many problems each stops."""
    ops = Counter()
    for r in rows:
        if r.get("status") == "unsupported":
            # "op: why at file:line [node]": the op and why, without where.
            reason = re.split(r" at \S+:\d+| \[", r.get("reason") or "")[0]
            reason = re.sub(r"^input \S+: ", "input: ", reason)
            ops[reason[:100]] += 1
    return ops.most_common()


def _f(v, digits=4):
    return "-" if v is None else f"{v:.{digits}f}"


def _x(v):
    return "-" if v is None else f"{v:.2f}x"


def _pct(v):
    return "-" if v is None else f"{100 * v:.0f}%"


def _cell(text, limit=140):
    text = (text or "").replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def summary_lines(s, title):
    lines = [f"| {title} | problems | correct | fast_0 | fast_1 | fast_2 | geomean (correct) | "
             f"geomean (all, fallback 1.0x) | mean (correct) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for label, name in (("eager", "vs eager"), ("compile", "vs torch.compile")):
        lines.append(
            f"| {name} | {s['problems']} | {s['correct']} | {_pct(s[f'fast_0_{label}'])} | "
            f"{_pct(s[f'fast_1_{label}'])} | {_pct(s[f'fast_2_{label}'])} | "
            f"{_x(s[f'geomean_{label}_correct'])} | {_x(s[f'geomean_{label}_all'])} | "
            f"{_x(s[f'mean_{label}_correct'])} |")
    counts = ", ".join(f"{k} {s['statuses'][k]}" for k in STATUSES if s["statuses"].get(k))
    lines.append("")
    lines.append(f"Statuses: {counts}.")
    return lines


def markdown(rows, header):
    """The whole report: header lines (command, commit, date, GPU...), the
    summary overall and per level, the ops that stop imports, and a table per
    level."""
    out = ["# KernelBench through EGG", "",
           "The project's headline benchmark: the KernelBench problems of ../shared/kernelbench "
           "at their official sizes, through `egg.compile` with the expert agent, judged the "
           "KernelBench way. This page is written by `python -m egg.bench` (python/README.md); "
           "to reproduce on a GPU host, build the tool bundle (`scripts/build-bundle.sh`) and run "
           "`bench/kernelbench.sh ../shared/kernelbench/level1 ../shared/kernelbench/level2 "
           "../shared/kernelbench/level3` (resumable: run it again to go on). fast_p: the share "
           "of all problems that are correct and more than p times as fast; a problem that is "
           "not correct counts as not fast. \"geomean (all)\" counts those at 1.0x, as "
           "`torch.compile(backend=\"egg\")` leaves them to PyTorch.", ""]
    out += [f"- {k}: {v}" for k, v in header.items()]
    out += ["", "## Summary", ""]
    out += summary_lines(summarize(rows), "all levels")
    levels = sorted({r["level"] for r in rows}, key=lambda x: (len(x), x))
    for level in levels:
        out += [""] + summary_lines(summarize([r for r in rows if r["level"] == level]), level)
    ops = unsupported_ops(rows)
    if ops:
        out += ["", "## What stops the unsupported problems", "",
                "| op | problems |", "|---|---|"]
        out += [f"| {_cell(op, 80)} | {n} |" for op, n in ops]
    for level in levels:
        out += ["", f"## {level}", "",
                "| problem | status | compile s | egg ms | eager ms | torch.compile ms | "
                "vs eager | vs torch.compile | max abs err | max rel err | float64 check | commit | "
                "reason |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in sorted((r for r in rows if r["level"] == level), key=_number):
            f64 = _f64(r)
            name = r["problem"] + (" (TF32)" if r.get("tf32") else "")
            timed = r.get("egg_ms") if not r.get("tuned_ms") else f"{_f(r['egg_ms'])} (tuned {_f(r['tuned_ms'])})"
            out.append(
                f"| {name} | {r.get('status') or 'not run'} | {_f(r.get('compile_s'), 1)} | "
                f"{timed if isinstance(timed, str) else _f(timed)} | {_f(r.get('eager_ms'))} | "
                f"{_f(r.get('compile_ms'))} | {_x(speedup(r, 'eager_ms'))} | "
                f"{_x(speedup(r, 'compile_ms'))} | {_g(r.get('max_abs'))} | {_g(r.get('max_rel'))} | "
                f"{f64} | {r.get('commit', '-')} | {_cell(r.get('reason') or r.get('compile_error'))} |")
    return "\n".join(out) + "\n"


def _f64(row):
    """The float64 column: PyTorch in float64 (its relative L2 error) / egg-eval's interpreter."""
    gpu, interp = row.get("f64") or {}, row.get("f64_egg_eval") or {}
    if not gpu and not interp:
        return "-"
    left = f"{gpu['status']} {gpu['rel_l2']:.1e}" if "rel_l2" in gpu else gpu.get("status", "-")
    return f"{left} / {interp.get('status', '-')}"


def _g(v):
    return "-" if v is None else f"{v:.2g}"


def _number(row):
    m = re.match(r"(\d+)", row["problem"])
    return (int(m.group(1)) if m else 1 << 30, row["problem"])
