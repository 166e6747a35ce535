"""Correctness the KernelBench way: each output of the compiled model against
the PyTorch model's, on the GPU, element by element
(|got - want| <= atol + rtol * |want|, as torch.allclose). The tolerance
follows each output's own element type."""

# KernelBench's fp32 check is atol = rtol = 1e-2; 16-bit outputs get their
# own: bf16 keeps 8 bits of mantissa (one step at 1.0 is 7.8e-3), so 1e-2
# would fail a correctly rounded result that sits one step from PyTorch's.
TOLERANCES = {"float64": 1e-2, "float32": 1e-2, "float16": 1e-2, "bfloat16": 2e-2}


def tolerance(dtype):
    """atol = rtol for an output of `dtype` (a torch.dtype); 0 (exact) for
    integer and boolean outputs such as indices."""
    return TOLERANCES.get(str(dtype).replace("torch.", ""), 0.0)


def as_list(outputs):
    return list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]


CHUNK = 1 << 26  # Elements compared at a time: float64 copies of a whole
# multi-GB output would not fit beside the model.


def compare(got, want):
    """Compares one set of outputs. Returns a dict: `ok`, the largest
    absolute and relative errors over all outputs (`max_abs`, `max_rel`), and
    `reason` naming the first output that fails and how, and the count of
    elements `outside` the tolerance. The relative error divides by
    |PyTorch's value| floored at 1e-6."""
    import torch
    got, want = as_list(got), as_list(want)
    if len(got) != len(want):
        return {"ok": False, "reason": f"{len(got)} outputs, PyTorch gives {len(want)}",
                "max_abs": None, "max_rel": None}
    worst_abs = worst_rel = 0.0
    reason = None
    outside = 0
    for i, (g, w) in enumerate(zip(got, want)):
        w = w if isinstance(w, torch.Tensor) else torch.as_tensor(w)
        g = g if isinstance(g, torch.Tensor) else torch.as_tensor(g)
        if tuple(g.shape) != tuple(w.shape):
            reason = reason or f"output {i}: shape {tuple(g.shape)}, PyTorch gives {tuple(w.shape)}"
            continue
        if g.dtype != w.dtype:
            reason = reason or f"output {i}: {g.dtype}, PyTorch gives {w.dtype}"
            continue
        tol = tolerance(w.dtype)
        g, w = g.detach().to(w.device).reshape(-1), w.detach().reshape(-1)
        nbad, first = 0, None
        for lo in range(0, w.numel(), CHUNK):
            gc = g[lo:lo + CHUNK].to(torch.float64)
            wc = w[lo:lo + CHUNK].to(torch.float64)
            diff = (gc - wc).abs()
            finite = torch.isfinite(wc)
            # A non-finite reference is matched exactly (inf by inf, NaN by NaN).
            same = (gc == wc) | (torch.isnan(gc) & torch.isnan(wc))
            bad = ~(same | (finite & (diff <= tol + tol * wc.abs())))
            diff = torch.where(finite, diff, torch.zeros_like(diff))
            diff = torch.where(finite & ~torch.isfinite(gc), torch.full_like(diff, float("inf")), diff)
            if diff.numel():
                worst_abs = max(worst_abs, float(diff.max()))
                worst_rel = max(worst_rel, float((diff / wc.abs().clamp_min(1e-6)).max()))
            count = int(bad.sum())
            if count and first is None:
                at = int(bad.nonzero()[0])
                first = (lo + at, gc[at].item(), wc[at].item())
            nbad += count
        outside += nbad
        if nbad and reason is None:
            at, gv, wv = first
            reason = (f"output {i}: {nbad} of {w.numel()} elements outside atol = rtol = {tol:g} "
                      f"(first at flat index {at}: egg {gv:.6g}, PyTorch {wv:.6g})")
    return {"ok": reason is None, "reason": reason, "max_abs": worst_abs, "max_rel": worst_rel,
            "outside": outside}
