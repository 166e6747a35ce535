"""Spreads problems over the visible GPUs, one worker process each
(worker.py), and keeps the run going whatever a problem does: a problem that
runs past its time limit is a `timeout` and its worker is killed; a worker
that dies (a CUDA fault, a crash in a tool or library) costs that problem,
reported as a `fault` with the end of the worker's log, and a new worker
takes the next problem. Rows are stored as they come (store.Results); the
time budget stops handing out problems, and a later run resumes."""
import json
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict
from pathlib import Path

from .store import CompileCache, problem_key
from .worker import level_of

PROGRESS_WIDTH = 24


def visible_gpus(count=None):
    """GPU indices to run on: the first `count`, or all that CUDA sees."""
    if count is None:
        import torch
        count = torch.cuda.device_count()
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    ids = [v.strip() for v in visible.split(",")] if visible else [str(i) for i in range(count)]
    return ids[:count]


class Worker:
    """One worker process bound to one GPU, started again after a fault."""

    module = "egg.bench.worker"  # What runs the problems (a test puts a stand-in here).

    def __init__(self, gpu, opts, log_dir):
        self.gpu, self.opts = gpu, opts
        self.log_path = Path(log_dir) / f"worker-gpu{gpu}.log"
        self.proc = None
        self.identity = None

    def start(self):
        read_fd, write_fd = os.pipe()
        env = dict(os.environ, CUDA_VISIBLE_DEVICES=self.gpu, PYTHONUNBUFFERED="1")
        log = open(self.log_path, "a")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", self.module, json.dumps(asdict(self.opts)), str(write_fd)],
            stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, text=True,
            pass_fds=(write_fd,), env=env, start_new_session=True)
        os.close(write_fd)
        log.close()
        self.results = os.fdopen(read_fd, "r")
        hello = self.read(timeout=300)
        self.identity = (hello or {}).get("hello")
        if not self.identity:
            self.stop()
            raise RuntimeError(f"the worker for GPU {self.gpu} did not start: {self.log_tail()}")

    def read(self, timeout):
        """The next line from the worker as JSON; None at its end or after
        `timeout` seconds."""
        ready, _, _ = select.select([self.results], [], [], timeout)
        if not ready:
            return None
        line = self.results.readline()
        return json.loads(line) if line else None

    def run(self, path, cached_compile, timeout):
        """Runs one problem; returns its row, never raises for what the
        problem does."""
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        task = {"path": str(path), "cached_compile": cached_compile}
        try:
            self.proc.stdin.write(json.dumps(task) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.stop()
            return self.run(path, cached_compile, timeout)
        deadline = time.monotonic() + timeout
        row = self.read(max(deadline - time.monotonic(), 0))
        if row is not None:
            if row.get("status") == "fault":
                self.stop()  # The worker exits after a fault; make sure.
            return row
        timed_out = time.monotonic() >= deadline and self.proc.poll() is None
        self.stop()
        stem = Path(path).stem
        if timed_out:
            return {"problem": stem, "level": level_of(path), "status": "timeout",
                    "reason": f"no result after {timeout:g} s: the worker was killed"}
        return {"problem": stem, "level": level_of(path), "status": "fault",
                "reason": f"the worker died: {self.log_tail()}"}

    def log_tail(self, lines=4):
        try:
            text = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return " / ".join(text[-lines:])[-400:]

    def stop(self):
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.wait()
            self.results.close()
        self.proc = None


class Progress:
    """One line per finished problem on stderr, with a bar."""

    def __init__(self, total, already):
        self.total, self.done, self.start = total, already, time.monotonic()
        self.lock = threading.Lock()

    def update(self, key, row):
        from .report import speedup
        with self.lock:
            self.done += 1
            filled = PROGRESS_WIDTH * self.done // max(self.total, 1)
            bar = "#" * filled + "-" * (PROGRESS_WIDTH - filled)
            ups = [f"{speedup(row, b):.2f}x {n}" for b, n in (("eager_ms", "eager"),
                                                              ("compile_ms", "torch.compile"))
                   if speedup(row, b)]
            elapsed = time.monotonic() - self.start
            print(f"[{bar}] {self.done}/{self.total} {elapsed / 60:5.1f} min  {key}: {row['status']}"
                  f"{' ' + ', '.join(ups) if ups else ''}", file=sys.stderr, flush=True)


def run(paths, opts, results, cache, gpus, budget_s, problem_timeout, rerun=()):
    """Runs every problem of `paths` that `results` does not hold yet;
    returns the keys left for a later run by the budget."""
    todo = [p for p in paths if not results.done(problem_key(p), rerun)]
    progress = Progress(len(paths), len(paths) - len(todo))
    tasks = queue.Queue()
    for p in todo:
        tasks.put(p)
    deadline = time.monotonic() + budget_s if budget_s else None
    lock = threading.Lock()
    log_dir = Path(opts.out)
    log_dir.mkdir(parents=True, exist_ok=True)

    def serve(gpu):
        worker = Worker(gpu, opts, log_dir)
        try:
            while True:
                if deadline and time.monotonic() > deadline:
                    return
                try:
                    path = tasks.get_nowait()
                except queue.Empty:
                    return
                if worker.identity is None:
                    worker.start()
                key = CompileCache.key(path, worker.identity["gpu"], worker.identity["torch"],
                                       opts.compile_mode)
                row = worker.run(path, cache.get(key), problem_timeout)
                row.setdefault("gpu", worker.identity["gpu"])
                row.setdefault("torch", worker.identity["torch"])
                with lock:
                    results.add(row)
                    cache.put(key, problem_key(path), row)
                progress.update(problem_key(path), row)
        finally:
            worker.stop()

    threads = [threading.Thread(target=serve, args=(g,), daemon=True) for g in gpus]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    left = []
    while not tasks.empty():
        left.append(problem_key(tasks.get_nowait()))
    return left
