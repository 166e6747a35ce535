"""PyTorch-side timing, the same method as egg-eval: CUDA events around each
run after warm-up, the L2 flushed before every run, the median of many runs.

The flush follows egg-eval's --l2-flush, taken from $EGG_L2_FLUSH: `write`
(the default, a 128 MiB write, as Triton's do_bench does: L2 is left full of
dirty lines) or `read` (a sum over that buffer: L2 is left clean)."""
import os


def l2_flush_mode():
    mode = os.environ.get("EGG_L2_FLUSH", "write")
    if mode not in ("write", "read"):
        raise ValueError(f"EGG_L2_FLUSH must be write or read, not {mode!r}")
    return mode


def time_ms(fn, args, runs=200, budget_ms=None, min_runs=10):
    """Median of `runs` timed calls of fn(*args), each after an L2 flush.
    With `budget_ms`, as many runs as fit in that much GPU time (by the
    warm-up calls' times), between `min_runs` and `runs`: a 400 ms problem
    is not run 200 times."""
    import torch
    read = l2_flush_mode() == "read"
    flush = torch.zeros(int(2 * 64 * 2**20 // 4), dtype=torch.float32, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    warm = []
    for _ in range(3):
        start.record()
        fn(*args)
        end.record()
        end.synchronize()
        warm.append(start.elapsed_time(end))
    if budget_ms is not None:
        runs = max(min_runs, min(runs, int(budget_ms / max(min(warm), 1e-3))))
    samples = []
    for i in range(runs):
        if read:
            flush.sum()
        else:
            flush.fill_(float(i))
        start.record()
        fn(*args)
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end))
    samples.sort()
    return samples[len(samples) // 2]
