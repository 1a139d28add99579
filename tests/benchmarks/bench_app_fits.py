"""The app's fits timed at the app's sizes: rows of ``python tests/benchmarks/bench_speed.py``.

* exact KPCA with scikit-learn's arpack and randomized solvers, as the app times them, on every
  bundled sample and 2,000 pendigits rows (the app's comparison sets): why the Speedups page times
  arpack only unless asked (:func:`app_solver_rows`);
* exact KPCA with and without projecting the training rows again, as Embeddings fits it
  (:func:`app_embedding_rows`);
* two of the app's fits with the libraries' threads and with one BLAS and OpenMP thread, the other
  core idle and busy: why the app fits on one (:func:`app_thread_rows`).

Printed by ``tests/benchmarks/bench_speed.py`` (its ``solvers`` section), whose settings they share.
"""

from __future__ import annotations

import sys

import numpy as np

from rskpca.evaluation import timing
from bench_speed_settings import ELL, R

__all__ = ["app_solver_rows", "app_embedding_rows", "app_thread_rows"]


def _app_pendigits(pendigits):
    """``(X, sigma)``: the app's comparison set on pendigits (a seeded 2,000-row sample) and its median sigma."""
    from rskpca.core.bandwidth_heuristic import median_heuristic

    rows = np.sort(np.random.default_rng(0).choice(pendigits.shape[0], size=2000, replace=False))
    return pendigits[rows], median_heuristic(pendigits[rows])


def app_solver_rows(pendigits, repeats, ranks=(2, 5, 10, 20)):
    """(data, n, r, arpack_s, randomized_s): exact KPCA's two scikit-learn solvers, timed as the
    app times them, on the app's comparison sets (at most EXACT_MAX_ROWS = 2000 rows)."""
    from rskpca.core.bandwidth_heuristic import median_heuristic
    from rskpca.data.samples import SAMPLES, load_sample
    from rskpca.evaluation.fitting import fit_exact

    sets = []
    for name, info in SAMPLES.items():
        X = load_sample(name).drop(columns="label").to_numpy(dtype=np.float64)
        sets.append((name, X, info.sigma or median_heuristic(X)))
    sets.append(("pendigits (2000 rows)", *_app_pendigits(pendigits)))
    out = []
    for name, X, sigma in sets:
        for r in ranks:
            if r >= X.shape[0]:
                continue
            times = [fit_exact(X, n_components=r, sigma=sigma, solvers=(solver,),
                               timing=timing.Timing(repeats=repeats, warmup=1)).train_s
                     for solver in ("arpack", "randomized")]
            out.append((name, X.shape[0], r, *times))
    return out


def app_embedding_rows(pendigits, repeats, ranks=(5, 10)):
    """(data, n, r, projected_s, fit_only_s): exact KPCA with scikit-learn's arpack as the app fits it
    for a page that shows the embedding, not times (``rskpca.ui.compute.exact_embedding``): fit and
    projection of the training rows, against the fit alone, which reads their embedding off the fit
    (``fit_exact(project=False)``); on one BLAS and OpenMP thread, as the app runs it."""
    from rskpca.core.threads import native_threads_off
    from rskpca.core.bandwidth_heuristic import median_heuristic
    from rskpca.data.samples import SAMPLES, load_sample
    from rskpca.evaluation.fitting import fit_exact

    digits = load_sample("digits").drop(columns="label").to_numpy(dtype=np.float64)
    sets = [("digits", digits, SAMPLES["digits"].sigma or median_heuristic(digits)),
            ("pendigits (2000 rows)", *_app_pendigits(pendigits))]
    out = []
    with native_threads_off():
        for name, X, sigma in sets:
            for r in ranks:
                every = timing.Timing(repeats=repeats, warmup=1)
                projected = fit_exact(X, n_components=r, sigma=sigma, solvers=("arpack",), timing=every)
                fit_only = fit_exact(X, n_components=r, sigma=sigma, solvers=("arpack",), timing=every, project=False)
                out.append((name, X.shape[0], r, projected.train_s + projected.test_s, fit_only.train_s))
    return out


def app_thread_rows(pendigits, calls: int = 7):
    """(data, fit, threads, quiet_s, busy_s): two of the app's comparison fits on its two moons and
    2,000 pendigits rows, median of ``calls``, with the other core idle and with a process spinning
    beside it (the browser drawing, in the app), with the libraries' own threads ("default") and
    inside :func:`~rskpca.core.threads.native_threads_off` ("one"): why the app fits and times its
    comparisons on one BLAS and OpenMP thread (``rskpca.ui.compute``).

    The fits: scikit-learn's arpack exact KPCA (BLAS threads) and density-weighted Nystrom with m =
    the shadow's m at ell = 4 (scikit-learn's k-means: OpenMP threads), fit and transform.
    """
    import subprocess
    from contextlib import nullcontext

    from rskpca.core.threads import native_threads_off
    from rskpca.core.shadow import shadow_centers
    from rskpca.data.samples import SAMPLES, load_sample
    from rskpca.evaluation.fitting import fit_exact, fit_method

    moons = load_sample("two_moons").drop(columns="label").to_numpy(dtype=np.float64)
    sets = [("two_moons", moons, SAMPLES["two_moons"].sigma), ("pendigits (2000 rows)", *_app_pendigits(pendigits))]
    fits = {
        "exact (arpack)": lambda X, sigma, t: fit_exact(X, n_components=R, sigma=sigma, solvers=("arpack",), timing=t),
        "density-weighted Nystrom": lambda X, sigma, t: fit_method(
            "wnystrom", X, n_components=R, sigma=sigma, kernel="gaussian", ell=ELL,
            m=shadow_centers(X, sigma=sigma, ell=ELL).m, timing=t),
    }
    limits = {"default": nullcontext, "one": native_threads_off}

    def median_time(fit, X, sigma, threads):
        with limits[threads]():
            times = [fit(X, sigma, timing.Timing(warmup=int(k == 0))) for k in range(calls)]
        return float(np.median([t.train_s + t.test_s for t in times]))

    keys = [(name, fit, th) for name, _, _ in sets for fit in fits for th in limits]
    data = {name: (X, sigma) for name, X, sigma in sets}
    quiet = {k: median_time(fits[k[1]], *data[k[0]], k[2]) for k in keys}
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        busy = {k: median_time(fits[k[1]], *data[k[0]], k[2]) for k in keys}
    finally:
        burner.kill()
    return [(*k, quiet[k], busy[k]) for k in keys]
