"""PyTorch-side timing, the same method as egg-eval: CUDA events around each
run after warm-up, the L2 flushed (a 128 MiB write) before every run, the
median of many runs."""


def time_ms(fn, args, runs=200):
    import torch
    flush = torch.empty(int(2 * 64 * 2**20 // 4), dtype=torch.float32, device="cuda")
    for _ in range(5):
        fn(*args)
    torch.cuda.synchronize()
    samples = []
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for i in range(runs):
        flush.fill_(float(i))
        start.record()
        fn(*args)
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end))
    samples.sort()
    return samples[len(samples) // 2]
