#!/usr/bin/env python3
"""Fits the polynomials of egg-expand-erf (lib/Dialect/Egg/Transforms/ExpandErf.cpp)
and measures their error in float32 arithmetic (each step an fma rounded to
float32, as the GPU evaluates them). Needs numpy. Prints the C++ tables.

f32:      |x| < 0.9:  erf(x) = x + x * R(x^2)           R of degree 6
          otherwise:  erf(x) = sign(x) (1 - 2^Q(min(|x|, 4)))   Q of degree 6
f16/bf16: erf(x) = c + c * P(c^2), c = clamp(x, -3, 3)  P of degree 9
          (computed in f32; 2^-12 is half an f16 ulp below 1, erfc(3) = 2.2e-5)

Each fit is a minimax fit by Lawson's reweighted least squares on Chebyshev
nodes: relative error for R and P, absolute error of erf for Q."""
import math
import numpy as np

F32 = np.float32
CUT, CLAMP_F32, CLAMP_16 = 0.9, 4.0, 3.0


def nodes(lo, hi, n):
    k = np.arange(n)
    return (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / n)


def minimax(points, target, degree, weight, iterations=200):
    basis = np.vander(points, degree + 1, increasing=True)
    w = np.full(len(points), 1.0 / len(points))
    for _ in range(iterations):
        scale = np.sqrt(w) * weight
        coeffs, *_ = np.linalg.lstsq(scale[:, None] * basis, scale * target, rcond=None)
        err = np.abs(weight * (basis @ coeffs - target))
        w = w * err
        w /= w.sum()
    return [F32(c) for c in coeffs]


erf = np.vectorize(math.erf)
erfc = np.vectorize(math.erfc)


def fit():
    x = nodes(1e-6, CUT, 4000)
    small = minimax(x * x, erf(x) / x - 1, 6, np.ones_like(x))
    t = nodes(CUT, CLAMP_F32, 4000)
    large = minimax(t, np.log2(erfc(t)), 6, erfc(t) * math.log(2))
    x = nodes(1e-6, CLAMP_16, 6000)
    half = minimax(x * x, erf(x) / x - 1, 9, x / erf(x))
    return small, large, half


def horner(coeffs, s):
    """Horner's rule with one float32 rounding per fma."""
    r = np.full_like(s, coeffs[-1])
    for c in coeffs[-2::-1]:
        r = (r.astype(np.float64) * s + np.float64(c)).astype(F32)
    return r


def fma(a, b, c):
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(F32)


def erf_f32(x, small, large):
    t = np.abs(x)
    r = fma(x, horner(small, (x * x).astype(F32)), x)
    e = np.exp2(horner(large, np.minimum(t, F32(CLAMP_F32))).astype(np.float64)).astype(F32)
    return np.where(t < F32(CUT), r, np.copysign((F32(1) - e).astype(F32), x))


def erf_16(x, half):
    c = np.clip(x, F32(-CLAMP_16), F32(CLAMP_16))
    return fma(c, horner(half, (c * c).astype(F32)), c)


def main():
    small, large, half = fit()
    xs = np.concatenate([np.linspace(-6, 6, 2000001), np.geomspace(1e-30, 6, 200001)]).astype(F32)
    xs = np.concatenate([xs, -xs])
    ref = erf(xs.astype(np.float64))
    got = erf_f32(xs, small, large).astype(np.float64)
    ulps = np.abs(got - ref) / np.spacing(np.abs(ref).astype(F32)).astype(np.float64)
    print(f"// f32: at most {ulps.max():.2f} ulp (mean {ulps.mean():.3f}) with an exact exp2")
    got = erf_16(xs, half).astype(np.float64)
    nonzero = ref != 0
    assert np.all(got[~nonzero] == 0)
    rel = np.abs(got - ref)[nonzero] / np.abs(ref[nonzero])
    print(f"// f16/bf16: relative error at most {rel.max():.2e} before rounding")
    for name, coeffs in (("kErfSmall", small), ("kErfLarge", large), ("kErfHalf", half)):
        print(f"static constexpr float {name}[] = {{" + ", ".join(f"{float(c):.9g}f" for c in coeffs) + "};")


if __name__ == "__main__":
    main()
