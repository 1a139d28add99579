"""Benchmark: the landmark graph's eigensolver where its top eigenvalues crowd at 1 (a graph in pieces).

Every row its own landmark (the Spectral page's exact comparison) on many small classes gives a landmark
graph in pieces, or pieces joined by a few weak links: eigenvalue 1 many times over, or within 1e-7 of it.
ARPACK does not converge there; ``_landmark_graph`` solves such a graph piece by piece, and densely where
ARPACK still stalls. The data: a seeded mixture like a user's file with many classes of very unequal sizes
(100 classes in 6 dimensions, sizes falling as 1 / rank^1.2, centers 5 apart on average, spread 0.9).

    python tests/benchmarks/bench_landmark_pieces.py                   # this checkout
    PYTHONPATH=/tmp/old python tests/benchmarks/bench_landmark_pieces.py   # another (git archive COMMIT)

Prints, per row count and k: the fit's outcome (or the error's name), its seconds and solver.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def many_classes(n: int, *, classes: int = 100, d: int = 6, seed: int = 0) -> np.ndarray:
    """``n`` rows of a seeded mixture: ``classes`` centers N(0, 5^2), sizes falling as 1 / rank^1.2, spread 0.9."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(0.0, 5.0, size=(classes, d))
    share = 1.0 / np.arange(1, classes + 1) ** 1.2
    codes = rng.choice(classes, size=n, p=share / share.sum())
    return centers[codes] + rng.normal(0.0, 0.9, size=(n, d))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[600, 3000])
    parser.add_argument("--k", type=int, nargs="+", default=[2, 10])
    args = parser.parse_args(argv)

    import rskpca
    from rskpca import ReducedSetSpectralClustering

    print(f"rskpca from {rskpca.__file__}; every row a landmark (ell = 1e12, no budget), n_neighbors = 5")
    print(f"{'rows':>6} {'k':>4}  {'outcome':<22} {'seconds':>8}  solver")
    for n in args.rows:
        X = many_classes(n)
        for k in args.k:
            est = ReducedSetSpectralClustering(n_clusters=k, ell=1e12, max_centers=None, random_state=0)
            start = time.perf_counter()
            try:
                est.fit(X)
                outcome = "ok"
            except Exception as exc:  # noqa: BLE001 - the failure is the measurement
                outcome = type(exc).__name__
            seconds = time.perf_counter() - start
            print(f"{n:>6} {k:>4}  {outcome:<22} {seconds:>8.2f}  {getattr(est, 'eigen_solver_', '-')}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
