"""``rskpca bench``: where the fit's time goes (mode ``fit``) and every method side by side (mode ``methods``).

Mode ``fit``, per (n, d, ell) on Gaussian-mixture data (or a labelled CSV): m, the shadow time
and path, the eigen time and solver (both timed inside the same RSKPCA fit call, so they never
exceed it), the whole fit, exact KPCA with each scikit-learn solver (the fastest is the
baseline), Nystrom at the same m, the projection time per 10^4 points of each, the speedups
as ratios of times from the same run, the shadow's GEMM floor ratio and the peak memory.

The shadow's floor on d >= 8 is the BLAS work of the distances from every point to the
centers that exist when it is visited: ``2 d sum_i m(i)`` flops, with ``m(i)`` the number of
centers created before point i, at the GEMM rate measured in the same run.

Mode ``methods``: every registered method on the same rows at the shadow's m, through
:func:`rskpca.evaluation.compare.sweep_point` (the app's path), with the Gram-matrix errors
of the sampling methods and the reduced-set construction's fit parts.

Every time is the best of the same :class:`~rskpca.evaluation.timing.Timing` (repeats after
warm-up) for every method, exact KPCA included. Nothing here asserts a speed; column names
and units are those of :mod:`rskpca.evaluation.result_columns`.
"""

from __future__ import annotations

import time
import tracemalloc
from typing import Sequence

import numpy as np

from rskpca.core.bandwidth_heuristic import median_heuristic
from rskpca.core.progress import ProgressCallback
from rskpca.core.shadow import shadow_centers
from rskpca.decomposition import NystromKPCA, ReducedSetKPCA
from rskpca.evaluation.compare import compare, sweep_point
from rskpca.evaluation.fitting import EXACT_SOLVERS, fit_exact
from rskpca.evaluation.methods import REFERENCE, check_methods, methods_in
from rskpca.evaluation.timing import Timing, best_time

__all__ = ["gaussian_mixture", "gemm_rate", "shadow_floor_flops", "exact_baseline", "bench_case", "run_bench",
           "methods_benchmark", "METHODS_BENCH_DEFAULT"]


#: Mode ``methods``: exact KPCA (two ways), RSKPCA, Nystrom and the other speed-ups.
METHODS_BENCH_DEFAULT = methods_in("methods_bench")


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
    """Float64 GEMM rate of this machine in flop/s (best of ``repeats`` square products after one warm-up).

    >>> gemm_rate(64, 1) > 0
    True
    """
    rng = np.random.default_rng(0)
    a = rng.normal(size=(size, size))
    b = rng.normal(size=(size, size))
    _, best = best_time(lambda: a @ b, Timing(repeats=repeats, warmup=1))
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


class _PartTimedReducedSetKPCA(ReducedSetKPCA):
    """ReducedSetKPCA recording, inside each fit call, the seconds of the shadow and of the rest.

    The parts are timed within the call whose whole is timed outside it, so a part never
    exceeds its whole (separate best-of timings of each part could).
    """

    def _centers_and_weights(self, X, rng):
        start = time.perf_counter()
        out = super()._centers_and_weights(X, rng)
        self._shadow_s = time.perf_counter() - start
        return out

    def _fit_centers(self, X):
        start = time.perf_counter()
        out = super()._fit_centers(X)
        self._centers_fit_s = time.perf_counter() - start
        return out


def _timed_rskpca_fit(X, *, n_components, sigma, ell, timing: Timing):
    """Best whole fit over ``timing`` and the shadow / eigen parts of that same call."""
    est = _PartTimedReducedSetKPCA(n_components=n_components, sigma=sigma, ell=ell)
    for _ in range(timing.warmup):
        est.fit(X)
    best = None
    for _ in range(timing.repeats):
        start = time.perf_counter()
        est.fit(X)
        whole = time.perf_counter() - start
        if best is None or whole < best[0]:
            best = (whole, est._shadow_s, est._centers_fit_s - est._shadow_s)
    return est, best


def _peak_mb(fn) -> float:
    """Peak of traced (numpy included) allocations during ``fn()``, in MiB."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def exact_baseline(X, X_test, *, n_components: int, sigma: float, timing: Timing) -> dict:
    """Exact KPCA's columns: training time per scikit-learn solver, the fastest, and test time per 10^4.

    >>> X = gaussian_mixture(120, 2)
    >>> row = exact_baseline(X[:100], X[100:], n_components=2, sigma=5.0, timing=Timing())
    >>> row["exact_train_s"] == min(row["exact_arpack_train_s"], row["exact_randomized_train_s"])
    True
    """
    exact = fit_exact(X, X_test, n_components=n_components, sigma=sigma, timing=timing)
    per = exact.solver_train_s
    return {"exact_solver": min(per, key=per.get), **{f"exact_{s}_train_s": per[s] for s in EXACT_SOLVERS},
            "exact_train_s": exact.train_s, "exact_test_per_1e4_s": exact.test_s * 1e4 / X_test.shape[0]}


def bench_case(X, X_test, *, ell: float, sigma: float, n_components: int = 5, dataset: str = "mixture",
               exact: dict | None = None, timing: Timing = Timing(repeats=2, warmup=1),
               gemm_flops: float | None = None, nystrom: bool = True) -> dict:
    """One ``rskpca bench fit`` row for training data ``X`` and projected points ``X_test``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    X_test : ndarray of shape (n_test, d)
    ell, sigma : float
    n_components : int, default=5
    dataset : str, default="mixture"
        Name written into the row.
    exact : dict or None
        :func:`exact_baseline` of the same rows (it does not depend on ell, so a grid computes
        it once per data set); None leaves exact KPCA's columns NaN.
    timing : Timing, default=Timing(repeats=2, warmup=1)
        The same for RSKPCA, Nystrom and (via ``exact``) exact KPCA.
    gemm_flops : float or None
        GEMM rate for the floor ratio; measured if None.
    nystrom : bool, default=True
        Also time Nystrom at the shadow's m (its projection costs O(n) per point).

    Returns
    -------
    dict
        Columns of :mod:`rskpca.evaluation.result_columns`.

    Examples
    --------
    >>> X = gaussian_mixture(600, 4)
    >>> row = bench_case(X[:500], X[500:], ell=4.0, sigma=8.0, timing=Timing(), gemm_flops=1e10)
    >>> row["m"] > 0 and row["shadow_s"] + row["eigen_s"] <= row["train_s"]
    True
    """
    n, d = X.shape
    gemm_flops = gemm_rate() if gemm_flops is None else gemm_flops
    shadow = shadow_centers(X, sigma=sigma, ell=ell)  # untimed: the path and centers for the floor
    m = shadow.m
    r = min(n_components, m)
    est, (train_s, shadow_s, eigen_s) = _timed_rskpca_fit(X, n_components=r, sigma=sigma, ell=ell, timing=timing)
    _, test_s = best_time(lambda: est.transform(X_test), timing)
    per = 1e4 / X_test.shape[0]
    nan = float("nan")
    row = dict(dataset=dataset, n_train=n, n_test=X_test.shape[0], d=d, ell=ell, sigma=sigma, m=m,
               shadow_path=shadow.algorithm, shadow_s=shadow_s,
               floor_ratio=shadow_s / (shadow_floor_flops(shadow.center_indices, n, d) / gemm_flops),
               eigen_solver=est.eigen_solver_, eigen_s=eigen_s, train_s=train_s, test_per_1e4_s=test_s * per,
               exact_solver="", **{f"exact_{s}_train_s": nan for s in EXACT_SOLVERS},
               exact_train_s=nan, exact_test_per_1e4_s=nan, nystrom_train_s=nan, nystrom_test_per_1e4_s=nan,
               peak_mb=_peak_mb(lambda: ReducedSetKPCA(n_components=r, sigma=sigma, ell=ell).fit(X)),
               gemm_gflops=gemm_flops / 1e9, repeats=timing.repeats, warmup=timing.warmup)
    if exact is not None:
        row.update(exact)
    if nystrom:
        ny = NystromKPCA(n_components=r, sigma=sigma, m=m, random_state=0)
        _, ny_train_s = best_time(lambda: ny.fit(X), timing)
        _, ny_test_s = best_time(lambda: ny.transform(X_test), timing)
        row.update(nystrom_train_s=ny_train_s, nystrom_test_per_1e4_s=ny_test_s * per)
    row.update(train_speedup=row["exact_train_s"] / train_s,
               test_speedup=row["exact_test_per_1e4_s"] / row["test_per_1e4_s"],
               train_speedup_over_nystrom=row["nystrom_train_s"] / train_s,
               test_speedup_over_nystrom=row["nystrom_test_per_1e4_s"] / row["test_per_1e4_s"])
    return row


def run_bench(X_sets, *, ells: Sequence[float], sigma: float | None = None, n_components: int = 5,
              exact_max_n: int = 12_000, timing: Timing = Timing(repeats=2, warmup=1),
              progress: ProgressCallback | None = None) -> list[dict]:
    """:func:`bench_case` for every data set in ``X_sets`` and every ell (exact KPCA once per data set).

    ``X_sets`` is a sequence of ``(name, X_train, X_test)``; sigma is the median heuristic
    of each ``X_train`` when None. Exact KPCA (n x n kernel matrix: 8 n^2 bytes) and Nystrom
    (whose projection holds n_test x n kernel values) only up to ``exact_max_n`` rows.

    Examples
    --------
    >>> X = gaussian_mixture(400, 2)
    >>> rows = run_bench([("mixture", X[:300], X[300:])], ells=[4.0], timing=Timing())
    >>> rows[0]["shadow_path"], rows[0]["n_train"]
    ('compiled', 300)
    """
    rate = gemm_rate()
    total = len(X_sets) * len(ells)
    rows = []
    for name, X, X_test in X_sets:
        s = median_heuristic(X) if sigma is None else float(sigma)
        small = X.shape[0] <= exact_max_n
        if progress is not None:
            progress(len(rows) / total, f"{len(rows)}/{total} {name} n={X.shape[0]} d={X.shape[1]}: exact KPCA")
        exact = exact_baseline(X, X_test, n_components=n_components, sigma=s, timing=timing) if small else None
        for ell in ells:
            if progress is not None:
                progress(len(rows) / total, f"{len(rows)}/{total} {name} n={X.shape[0]} d={X.shape[1]} ell={ell}")
            rows.append(bench_case(X, X_test, ell=float(ell), sigma=s, n_components=n_components, dataset=name,
                                   exact=exact, timing=timing, gemm_flops=rate, nystrom=small))
    if progress is not None:
        progress(1.0, f"{total}/{total} done")
    return rows


def methods_benchmark(X_train, X_eval, *, methods=METHODS_BENCH_DEFAULT, n_components: int = 3, ell: float = 4.0,
                      sigma: float | None = None, timing: Timing = Timing(repeats=2, warmup=1),
                      random_state=0) -> list[dict]:
    """``rskpca bench methods``: every method at the shadow's m, compared with exact KPCA.

    The rows are :func:`~rskpca.evaluation.compare.compare` rows (the app's), with ``sigma``
    and the Gram-matrix errors of the methods that perturb it measured.

    >>> X = np.random.default_rng(0).normal(size=(120, 3))
    >>> rows = methods_benchmark(X[:100], X[100:], methods=("exact", "random_fourier"), timing=Timing())
    >>> [r["name"] for r in rows]
    ['exact', 'random_fourier']
    """
    methods = check_methods(methods)
    sigma = median_heuristic(X_train) if sigma is None else float(sigma)
    exact = fit_exact(X_train, X_eval, n_components=n_components, sigma=sigma, random_state=random_state,
                      timing=timing)
    rows = [compare(exact, exact)] if REFERENCE.name in methods else []
    rows += sweep_point(X_train, X_eval, exact, ell=ell, methods=methods, n_components=n_components, sigma=sigma,
                        random_state=random_state, timing=timing, measure_gram_error=True)
    return [{**row, "sigma": sigma, "repeats": timing.repeats, "warmup": timing.warmup} for row in rows]
