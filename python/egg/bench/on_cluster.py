"""``python -m egg.bench --cluster=ray[:ADDRESS]``: the problems spread over a
Ray cluster, one task holding one GPU each, instead of this host's GPUs.
The driver keeps the run folder as without a cluster: rows are stored as
they come back (results.jsonl, so a killed driver resumes), PyTorch's
torch.compile times are cached here and handed to the task that needs them.
A task whose Ray worker dies is retried by Ray once; a problem that faults
its GPU runs once more, on another node where there is one, and keeps the
second row."""
import time
from dataclasses import asdict
from pathlib import Path

from ..cluster import ClusterError, connect, tasks
from . import driver
from .store import file_digest, problem_key

# Tasks in flight per GPU of the cluster: one running, one waiting, so a GPU
# never idles while the driver stores a row.
IN_FLIGHT_PER_GPU = 2


def run(paths, opts, results, cache, spec, bundle, budget_s, problem_timeout, rerun=()):
    """Runs every problem of `paths` that `results` does not hold yet on the
    cluster; returns the keys left for a later run by the budget."""
    todo = [p for p in paths if not results.done(problem_key(p), rerun)]
    progress = driver.Progress(len(paths), len(paths) - len(todo))
    if not todo:
        return []
    session = connect(spec, bundle)
    try:
        ray = session.ray
        gpus = session.resources()["gpus"]
        if gpus == 0:
            raise ClusterError("the Ray cluster has no GPUs to run problems on")
        remote = ray.remote(num_gpus=1, max_retries=1)(tasks.bench_problem)
        deadline = time.monotonic() + budget_s if budget_s else None
        queue = list(todo)
        pending = {}  # ref -> (path, attempt)

        def submit(path, attempt=1, avoid=None):
            task = session.elsewhere(remote, avoid)
            digest = file_digest(path)
            entries = {k: v for k, v in cache.entries.items() if k.startswith(digest + "|")}
            ref = task.remote(problem_key(path), Path(path).read_text(), asdict(opts), entries,
                              problem_timeout, driver.Worker.module)
            pending[ref] = (path, attempt)

        while queue or pending:
            while queue and len(pending) < IN_FLIGHT_PER_GPU * gpus and \
                    not (deadline and time.monotonic() > deadline):
                submit(queue.pop(0))
            if not pending:
                break
            done, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
            for ref in done:
                path, attempt = pending.pop(ref)
                try:
                    row = ray.get(ref)
                except Exception as e:  # The task failed on its retry too.
                    row = {"problem": Path(path).stem, "level": driver.level_of(path),
                           "status": "fault",
                           "reason": f"the task failed twice on the cluster: {e}"[:400]}
                if row.get("status") == "fault" and attempt == 1:
                    submit(path, 2, avoid=row.get("node"))
                    continue
                if attempt > 1:
                    row["reason"] = (row.get("reason", "") +
                                     " (run a second time after a fault on the cluster)").strip()
                results.add(row)
                key = cache.key(path, row.get("gpu", ""), row.get("torch", ""),
                                opts.compile_mode)
                cache.put(key, problem_key(path), row)
                progress.update(problem_key(path), row)
        return [problem_key(p) for p in queue]
    finally:
        session.close()
