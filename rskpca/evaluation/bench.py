"""Benchmarks of the fit and the projection: where the time goes, against what the hardware allows.

For each (n, d, ell) on Gaussian-mixture data (or a user's data set) one row records m, the
shadow time, the eigen time (kernel matrix of the centers + the m x m solve, with the solver
used), the whole RSKPCA fit, exact KPCA (scikit-learn's fastest solver for few components,
"randomized", up to a size cap), Nystrom at the same m, the projection time per 10^4 points
of each, the speedups as ratios of times measured in the same run, the shadow's GEMM floor
ratio, and the peak memory of the RSKPCA fit.

The shadow's floor on d >= 8 is the BLAS work of the distances from every point to the
centers that exist when it is visited: ``2 d sum_i m(i)`` flops, with ``m(i)`` the number
of centers created before point i. Its time is that work at the machine's GEMM rate,
measured in the same run on a square float64 product.

Timings are wall-clock and noisy on a shared machine: each is the best of ``repeats`` runs.
Nothing here asserts a speed; the numbers are printed and written to CSV.
"""

from __future__ import annotations

import time
import tracemalloc
from typing import Callable, Sequence

import numpy as np

from rskpca.core.eigen import weighted_kpca
from rskpca.decomposition._reduced_set import KernelPCA, NystromKPCA, ReducedSetKPCA
from rskpca.core.kernels import kernel_matrix, median_heuristic
from rskpca.core.shadow import shadow_centers

__all__ = ["gaussian_mixture", "gemm_rate", "shadow_floor_flops", "bench_case", "run_bench",
           "BENCH_COLUMNS", "format_table"]

#: Columns of a benchmark row, in print order.
BENCH_COLUMNS = (
    "data", "n", "d", "ell", "sigma", "m", "shadow_path", "shadow_s", "floor_ratio", "eigen_solver",
    "eigen_s", "fit_s", "exact_fit_s", "nystrom_fit_s", "test_per_1e4_s", "exact_test_per_1e4_s",
    "nystrom_test_per_1e4_s", "fit_speedup", "test_speedup", "nystrom_fit_speedup",
    "nystrom_test_speedup", "peak_mb",
)

Progress = Callable[[int, int, str], None]


def gaussian_mixture(n: int, d: int, *, n_clusters: int = 10, separation: float = 5.0,
                     random_state=0) -> np.ndarray:
    """``n`` points from ``n_clusters`` unit Gaussians whose means are ``N(0, separation^2 I)``.

    >>> gaussian_mixture(5, 3).shape
    (5, 3)
    """
    rng = np.random.default_rng(random_state)
    means = rng.normal(0.0, separation, size=(n_clusters, d))
    return means[rng.integers(0, n_clusters, n)] + rng.normal(size=(n, d))


def gemm_rate(size: int = 1024, repeats: int = 3) -> float:
    """Float64 GEMM rate of this machine in flop/s (best of ``repeats`` square products).

    >>> gemm_rate(64, 1) > 0
    True
    """
    rng = np.random.default_rng(0)
    a = rng.normal(size=(size, size))
    b = rng.normal(size=(size, size))
    best = np.inf
    for _ in range(repeats + 1):  # the first call warms up the BLAS threads
        start = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - start)
    return 2.0 * size**3 / best


def shadow_floor_flops(center_indices: np.ndarray, n: int, d: int) -> float:
    """``2 d sum_i m(i)``: distances from each point to the centers that exist when it is visited.

    Input visiting order: the centers are created in row order, so ``m(i)`` is the number of
    center indices below i.

    >>> shadow_floor_flops(np.array([0, 2]), 4, 1)  # m(i) = 0, 1, 1, 2
    8.0
    """
    m_before = np.searchsorted(np.sort(center_indices), np.arange(n), side="left")
    return 2.0 * d * float(m_before.sum())


def _best_time(fn, repeats: int):
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return out, best


def _peak_mb(fn) -> float:
    """Peak of traced (numpy included) allocations during ``fn()``, in MiB."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def bench_case(X, X_test, *, ell: float, sigma: float, n_components: int = 5, data: str = "mixture",
               exact_max_n: int = 12_000, repeats: int = 2, gemm_flops: float | None = None,
               nystrom: bool = True) -> dict:
    """One benchmark row for training data ``X`` and projected points ``X_test``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    X_test : ndarray of shape (n_test, d)
    ell, sigma : float
    n_components : int, default=5
    data : str, default="mixture"
        Name written into the row.
    exact_max_n : int, default=12000
        Exact KPCA (n x n kernel matrix: 8 n^2 bytes) only up to this n; NaN above.
    repeats : int, default=2
        Each time is the best of this many runs.
    gemm_flops : float or None
        GEMM rate for the floor ratio; measured if None.
    nystrom : bool, default=True
        Also time Nystrom at the shadow's m, up to n = 2 exact_max_n (its projection
        costs O(n) per point and holds n_test x n kernel values).

    Returns
    -------
    dict
        Keys :data:`BENCH_COLUMNS`.

    Examples
    --------
    >>> X = gaussian_mixture(600, 4)
    >>> row = bench_case(X[:500], X[500:], ell=4.0, sigma=8.0, repeats=1, gemm_flops=1e10)
    >>> row["m"] > 0 and row["fit_speedup"] > 0
    True
    """
    n, d = X.shape
    gemm_flops = gemm_rate() if gemm_flops is None else gemm_flops
    shadow, shadow_s = _best_time(lambda: shadow_centers(X, sigma=sigma, ell=ell), repeats)
    m = shadow.m
    r = min(n_components, m)

    def eigen():
        KC = kernel_matrix(shadow.centers, sigma=sigma)
        return weighted_kpca(KC, shadow.weights.astype(float), r)
    eig, eigen_s = _best_time(eigen, repeats)

    est = ReducedSetKPCA(n_components=r, sigma=sigma, ell=ell)
    _, fit_s = _best_time(lambda: est.fit(X), repeats)
    _, test_s = _best_time(lambda: est.transform(X_test), repeats)
    per = 1e4 / X_test.shape[0]
    row = dict(data=data, n=n, d=d, ell=ell, sigma=sigma, m=m, shadow_path=shadow.algorithm,
               shadow_s=shadow_s, floor_ratio=shadow_s / (shadow_floor_flops(shadow.center_indices, n, d)
                                                          / gemm_flops),
               eigen_solver=eig.solver, eigen_s=eigen_s, fit_s=fit_s, test_per_1e4_s=test_s * per,
               peak_mb=_peak_mb(lambda: ReducedSetKPCA(n_components=r, sigma=sigma, ell=ell).fit(X)))
    nan = float("nan")
    row.update(exact_fit_s=nan, exact_test_per_1e4_s=nan, fit_speedup=nan, test_speedup=nan,
               nystrom_fit_s=nan, nystrom_test_per_1e4_s=nan, nystrom_fit_speedup=nan,
               nystrom_test_speedup=nan)
    if n <= exact_max_n:
        exact = KernelPCA(n_components=r, sigma=sigma, eigen_solver="randomized", random_state=0)
        _, exact_fit_s = _best_time(lambda: exact.fit(X), 1)
        _, exact_test_s = _best_time(lambda: exact.transform(X_test), 1)
        row.update(exact_fit_s=exact_fit_s, exact_test_per_1e4_s=exact_test_s * per,
                   fit_speedup=exact_fit_s / fit_s, test_speedup=exact_test_s / test_s)
    if nystrom and n <= 2 * exact_max_n:  # its projection holds n_test x n kernel values
        ny = NystromKPCA(n_components=r, sigma=sigma, m=m, random_state=0)
        _, ny_fit_s = _best_time(lambda: ny.fit(X), 1)
        _, ny_test_s = _best_time(lambda: ny.transform(X_test), 1)
        row.update(nystrom_fit_s=ny_fit_s, nystrom_test_per_1e4_s=ny_test_s * per,
                   nystrom_fit_speedup=ny_fit_s / fit_s, nystrom_test_speedup=ny_test_s / test_s)
    return row


def run_bench(*, ns: Sequence[int] = (2_000, 5_000), ds: Sequence[int] = (2, 16),
              ells: Sequence[float] = (3.0, 4.0), n_test: int = 2_000, n_components: int = 5,
              exact_max_n: int = 12_000, repeats: int = 2, random_state: int = 0,
              progress: Progress | None = None) -> list[dict]:
    """The benchmark grid on Gaussian mixtures, sigma by the median heuristic.

    Returns
    -------
    list of dict
        One row per (n, d, ell); see :func:`bench_case`.

    Examples
    --------
    >>> rows = run_bench(ns=[300], ds=[2], ells=[4.0], n_test=100, repeats=1)
    >>> rows[0]["shadow_path"], rows[0]["n"]
    ('grid', 300)
    """
    rate = gemm_rate()
    total = len(ns) * len(ds) * len(ells)
    rows = []
    for n in ns:
        for d in ds:
            data = gaussian_mixture(n + n_test, d, random_state=random_state)
            X, X_test = data[:n], data[n:]
            sigma = median_heuristic(X, random_state=random_state)
            for ell in ells:
                if progress is not None:
                    progress(len(rows), total, f"n={n} d={d} ell={ell}")
                rows.append(bench_case(X, X_test, ell=ell, sigma=sigma, n_components=n_components,
                                       exact_max_n=exact_max_n, repeats=repeats, gemm_flops=rate))
    if progress is not None:
        progress(total, total, "done")
    for row in rows:
        row["gemm_gflops"] = rate / 1e9
    return rows


def format_table(rows, columns=BENCH_COLUMNS) -> str:
    """A fixed-width text table of the rows (3 significant digits).

    >>> print(format_table([{"n": 10, "fit_s": 0.012345}], ["n", "fit_s"]))
    n  fit_s
    10 0.0123
    """
    def fmt(v):
        if isinstance(v, (float, np.floating)):
            return "nan" if not np.isfinite(v) else f"{v:.3g}"
        return str(v)
    cells = [[c for c in columns]] + [[fmt(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    return "\n".join(" ".join(v.ljust(w) for v, w in zip(line, widths)).rstrip() for line in cells)
