"""The KDE at a few hundred points against many rows: float64 against float32 kernel blocks.

KDE vs ShDE evaluates the KDE at up to 500 of the rows against every row; on large data that is
``rskpca.core.rsde.kde(..., dtype=np.float32)``. This prints both on a seeded Gaussian mixture
(the app's million-row benchmark file), best of ``--repeats``, their ratio, and the largest
relative difference::

    python tests/benchmarks/bench_kde_float32.py                     # 500 points x 1,000,000 rows
    python tests/benchmarks/bench_kde_float32.py --rows 200000 --points 300
"""

from __future__ import annotations

import argparse

import numpy as np
from bench_row_cap import labelled_mixture
from bench_threaded_scan import best_of

from rskpca.core.bandwidth_heuristic import median_heuristic
from rskpca.core.rsde import kde


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--points", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    X = np.ascontiguousarray(labelled_mixture(args.rows)[0], dtype=np.float64)
    sigma = median_heuristic(X)
    P = X[np.random.default_rng(1).choice(X.shape[0], min(args.points, X.shape[0]), replace=False)]
    s64, exact = best_of(lambda: kde(P, X, sigma=sigma), args.repeats)
    s32, fast = best_of(lambda: kde(P, X, sigma=sigma, dtype=np.float32), args.repeats)
    error = float(np.max(np.abs(fast - exact) / exact))
    print(f"{P.shape[0]:,} points x {X.shape[0]:,} rows x {X.shape[1]}, sigma = {sigma:.4g} (median)")
    print(f"float64 {s64:.3f} s, float32 {s32:.3f} s, ratio {s64 / s32:.2f}, largest relative difference {error:.2e}")
    return 0 if error < 1e-5 else 1


if __name__ == "__main__":
    raise SystemExit(main())
