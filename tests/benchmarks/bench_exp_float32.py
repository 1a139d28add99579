"""Benchmark: the compiled float32 exponential of the Gaussian blocks against numpy's, in error and speed.

``python tests/benchmarks/bench_exp_float32.py [--rows 200000] [--centers 1236 4675] [--quick]``

1. The largest error, in units of float32's roundoff ``u = 2^-24``, of
   :func:`rskpca.core.exp_float32.exp_shifted_float32` and of ``np.exp`` on float32, against float64's exp,
   over every float32 value in [-87, 88] (about 2.1e9 of them, a minute or two; ``--quick`` takes every
   64th bit pattern instead).
2. Nanoseconds a value of the exp pass on one thread (a block of a million values), and the
   projection it serves: ``kernel_matvec`` of ``--rows`` float32 rows through each ``--centers`` count of
   centers (two components and the diffusion map's denominator), on the libraries' threads, with each exp.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

U = 2.0 ** -24


def max_errors(stride: int = 1) -> tuple[float, float]:
    """``(compiled, numpy)``: the largest relative errors, in u, over the float32 values in [-87, 88] whose bit
    patterns are multiples of ``stride``."""
    from rskpca.core.exp_float32 import exp_shifted_float32

    worst = [0.0, 0.0]
    chunk = 1 << 24
    for top, sign in ((int(np.float32(88.0).view(np.int32)), 1.0), (int(np.float32(87.0).view(np.int32)), -1.0)):
        for start in range(0, top + 1, chunk):
            x = np.arange(start, min(start + chunk, top + 1), stride, dtype=np.int32).view(np.float32) * np.float32(sign)
            exact = np.exp(x.astype(np.float64))
            mine = exp_shifted_float32(x.reshape(1, -1).copy(), np.zeros(1, np.float32))[0]
            for i, got in enumerate((mine, np.exp(x))):
                worst[i] = max(worst[i], float(np.max(np.abs(got - exact) / exact)) / U)
    return worst[0], worst[1]


def ns_per_value(fn, block: np.ndarray, repeats: int = 20) -> float:
    """Best nanoseconds a value of ``fn(copy of block)``, the copy's own time taken off."""
    work = block.copy()
    best_copy = best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        np.copyto(work, block)
        best_copy = min(best_copy, time.perf_counter() - t)
        t = time.perf_counter()
        np.copyto(work, block)
        fn(work)
        best = min(best, time.perf_counter() - t)
    return (best - best_copy) / block.size * 1e9


def projection_seconds(rows: int, m: int, *, compiled: bool) -> float:
    """Best of 3 seconds of ``kernel_matvec`` of ``rows`` float32 rows through ``m`` centers (10 features)."""
    from unittest import mock

    from rskpca.core import radial_kernels

    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, 10)).astype(np.float32)
    C = rng.normal(size=(m, 10))
    V = rng.random((m, 3))
    sigma = float(np.sqrt(2 * 10))  # about the median distance
    patch = mock.patch.object(radial_kernels, "fused_gaussian_block", _numpy_fused) if not compiled else mock.MagicMock()
    best = np.inf
    with patch:
        for _ in range(3):
            t = time.perf_counter()
            radial_kernels.kernel_matvec(X, C, V, sigma=sigma, dtype=np.float32)
            best = min(best, time.perf_counter() - t)
    return best


def _numpy_fused(out, left, right, u_left, u_right=None):
    np.matmul(left, right.T, out=out)
    out += u_left[:, None]
    if u_right is not None:
        out += u_right[None, :]
    return np.exp(out, out=out)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000, help="rows projected (default 200,000)")
    parser.add_argument("--centers", type=int, nargs="+", default=[1236, 4675], help="center counts to project through")
    parser.add_argument("--quick", action="store_true", help="every 64th float32 value for the errors")
    args = parser.parse_args(argv)
    from rskpca.core.exp_float32 import exp_shifted_float32
    from rskpca.core.threads import blas_threads
    from rskpca.evaluation.timing import machine_load

    print(machine_load())
    mine, theirs = max_errors(64 if args.quick else 1)
    print(f"largest error over {'every 64th' if args.quick else 'every'} float32 in [-87, 88]: "
          f"compiled {mine:.2f} u, numpy {theirs:.2f} u")
    block = -np.random.default_rng(0).random((800, 1250), dtype=np.float32) * 20
    zeros = np.zeros(block.shape[0], np.float32)
    with blas_threads(1):
        compiled_ns = ns_per_value(lambda b: exp_shifted_float32(b, zeros), block)
        numpy_ns = ns_per_value(lambda b: np.exp(b + zeros[:, None], out=b), block)
    print(f"exp pass, one thread: compiled {compiled_ns:.2f} ns a value, numpy (add + exp) {numpy_ns:.2f} ns "
          f"({numpy_ns / compiled_ns:.1f}x)")
    print("| rows | centers | numpy exp s | compiled exp s | ratio |")
    print("|---|---|---|---|---|")
    for m in args.centers:
        before = projection_seconds(args.rows, m, compiled=False)
        after = projection_seconds(args.rows, m, compiled=True)
        print(f"| {args.rows:,} | {m:,} | {before:.3f} | {after:.3f} | {before / after:.2f}x |")


if __name__ == "__main__":
    main()
