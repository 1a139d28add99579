"""The shadow's rows of ``python tests/benchmarks/bench_speed.py``: the screen's threads and the
compiled scan by the data's width, and the GEMM screen, the compiled scan and ``auto`` on
low-dimensional data.

Apart from the fit's levers because they time the shadow step alone, on data of other widths than
pendigits' (the evidence for the screen's row parts and for where ``auto`` runs the compiled scan,
``COMPILED_MAX_DIM``).
"""

from __future__ import annotations

import numpy as np

from rskpca.core.threads import one_thread_per_task
from rskpca.core.shadow import COMPILED_MAX_DIM
from rskpca.core.shadow._compiled import compiled_scan
from rskpca.core.shadow._screen import _blas_scan
from rskpca.core.shadow._select import _dispatch_backend
from bench_speed_settings import ELL, SIGMA, _load_labelled, best_time


def screen_thread_rows(X, repeats, usps=None):
    """The shadow screen on one thread and with threads (its row parts, BLAS's own), and the screen
    with threads against the compiled scan, by the data's width: pendigits (d = 16) at the fit's
    eps and at ell = 2 and 8, the digits sample (d = 64) and, given its path, 5,000 rows of usps
    (d = 256), at ell = 2, 4 and 8 of the median distance."""
    from rskpca.core.bandwidth_heuristic import median_heuristic
    median = lambda Z: median_heuristic(Z, max_samples=len(Z))  # noqa: E731 (over all pairs)
    from rskpca.data.samples import load_sample

    sets = [("pendigits", X, [SIGMA / ell for ell in (2.0, ELL, 8.0)])]
    digits = load_sample("digits").drop(columns="label").to_numpy(dtype=np.float64)
    sets.append(("digits", digits, [median(digits) / ell for ell in (2.0, 4.0, 8.0)]))
    if usps is not None:
        U = _load_labelled(usps)[:5000]
        sets.append(("usps (5,000 rows)", U, [median(U) / ell for ell in (2.0, 4.0, 8.0)]))
    threads, compiled = [], []
    for name, Z, epss in sets:
        Z = np.ascontiguousarray(Z)
        for eps in epss:
            with one_thread_per_task():
                one = best_time(lambda: _blas_scan(Z, eps), repeats)
            screen = best_time(lambda: _blas_scan(Z, eps), repeats)
            note = f"d = {Z.shape[1]}, m = {len(_blas_scan(Z, eps)[0])}"
            threads.append((f"shadow screen one thread -> threads, {name}", one, screen, note))
            compiled.append((f"shadow screen (threads) -> compiled, {name}", screen,
                             best_time(lambda: compiled_scan(Z, eps), repeats),
                             f"{note}; auto: compiled up to d = {COMPILED_MAX_DIM}"))
    return threads + compiled


def shadow_path_rows(repeats, n=200_000):
    """(d, eps, m, path, blas_s, compiled_s, auto_s) on standard normal data."""
    rng = np.random.default_rng(0)
    cases = {1: (0.06, 0.03, 0.015, 0.004), 2: (0.7, 0.25, 0.12, 0.09, 0.06), 3: (0.5, 0.25, 0.18, 0.12)}
    out = []
    with one_thread_per_task():
        for d, epss in cases.items():
            X = rng.normal(size=(n, d))
            for eps in epss:
                blas = best_time(lambda: _blas_scan(X, eps), repeats)
                compiled = best_time(lambda: compiled_scan(X, eps), repeats)
                auto = best_time(lambda: _dispatch_backend(X, eps, "auto"), repeats)
                rows, _, path = _dispatch_backend(X, eps, "auto")
                out.append((d, eps, rows.size, path, blas, compiled, auto))
    return out
