"""The compiled shadow scan in order against the same scan with most lookups on the threads.

From ``_THREADED_MIN_ROWS`` rows the scan screens each chunk of rows against the centers filed
before it on the threads and visits only the rest in order (``rskpca.core.shadow._compiled``).
This prints both on a seeded Gaussian mixture (the app's million-row benchmark file), best of
``--repeats``, their ratio, and checks that their centers and labels are identical::

    python tests/benchmarks/bench_threaded_scan.py                 # 1,000,000 x 10, ell 4, 5 and 8
    python tests/benchmarks/bench_threaded_scan.py --rows 300000 --ells 4
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_row_cap import labelled_mixture

from rskpca.core.bandwidth_heuristic import median_heuristic
from rskpca.core.shadow import _compiled
from rskpca.core.threads import all_threads


def best_of(fn, repeats):
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--ells", type=float, nargs="+", default=[4.0, 5.0, 8.0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    X = np.ascontiguousarray(labelled_mixture(args.rows)[0], dtype=np.float64)
    sigma = median_heuristic(X)
    kernels = _compiled._build_kernels()
    print(f"{args.rows:,} x {X.shape[1]} mixture, sigma = {sigma:.4g} (median), {all_threads()} thread(s)")
    print(f"{'ell':>5} {'m':>8} {'in order s':>11} {'threaded s':>11} {'ratio':>6}  identical")
    for ell in args.ells:
        prepared = _compiled._prepared(X, sigma / ell)
        seq_s, (rows, labels) = best_of(lambda: kernels["scan"](X, *prepared), args.repeats)
        par_s, (rows2, labels2) = best_of(lambda: _compiled._scan_on_threads(X, *prepared), args.repeats)
        same = np.array_equal(rows, rows2) and np.array_equal(labels, labels2)
        print(f"{ell:5g} {rows.size:8,} {seq_s:11.3f} {par_s:11.3f} {seq_s / par_s:6.2f}  {same}", flush=True)
        if not same:
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
