"""The fit's rows of ``python tests/benchmarks/bench_speed.py``: each lever of the reduced-set fit on
pendigits timed before and after, and the accuracy the levers keep.

Together because every row here is the one fit taken apart (scratch buffers, threads, screen
precision, the m x m kernel, the eigensolver) and checked against its float64 dense solution.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from rskpca.core.threads import all_threads, one_thread_per_task
from rskpca.core import _scratch
from rskpca.core.eigen import BLOCK_MIN_M, FLOAT32_MAX_COMPONENTS, kpca_on_centers, weighted_kpca
from rskpca.core.radial_kernels import kernel_matrix, kernel_matvec
from rskpca.core.weighted_kernel import weighted_kernel_matrix
from rskpca.core.metrics import alignment_error
from rskpca.core.shadow._screen import _blas_scan
from rskpca.core.shadow import shadow_centers
from rskpca.decomposition._reduced_set import ReducedSetKPCA
from bench_eigensolver_rows import _block_solve_rows
from bench_speed_settings import ELL, PENDIGITS_TRAIN_ROWS, R, SIGMA, best_time


def _float64_fit(X, sigma=SIGMA, ell=ELL, r=R):
    """The fit before the levers: float64 screen, float64 kernel matrix, centering pass, ARPACK."""
    idx, labels = _blas_scan(X, sigma / ell, "float64")
    C, w = X[idx], np.bincount(labels, minlength=idx.size).astype(float)
    return C, weighted_kpca(kernel_matrix(C, sigma=sigma), w, r, eigen_solver="arpack", overwrite=True)


def _embed(C, eig, X, sigma=SIGMA):
    return kernel_matvec(X, C, eig.dual_coef, sigma=sigma) - eig.mu @ eig.dual_coef


@contextmanager
def _no_scratch():
    """Inside, every scratch array is a fresh one (nothing is small enough to be kept)."""
    kept = _scratch.SCRATCH_MAX_BYTES
    _scratch.SCRATCH_MAX_BYTES = -1
    try:
        yield
    finally:
        _scratch.SCRATCH_MAX_BYTES = kept


def scratch_rows(X, repeats):
    """The fit and the shadow screen with fresh arrays and with the kept scratch buffers
    (:mod:`rskpca.core._scratch`), timed before anything else in the process: glibc maps large fresh
    arrays anew (page faults) until frees of large arrays raise its threshold, so later rows
    of the same process can show less of a difference."""
    fit = ReducedSetKPCA(sigma=SIGMA, ell=ELL, n_components=R, random_state=0)
    rows = []
    for label, run in (("RSKPCA fit", lambda: fit.fit(X)), ("shadow screen", lambda: _blas_scan(X, SIGMA / ELL))):
        with _no_scratch():
            fresh = best_time(run, repeats)
        rows.append((f"{label}: fresh arrays -> scratch buffers", fresh, best_time(run, repeats),
                     "timed first in the process"))
    return rows


def fit_rows(X, repeats):
    """Fit levers on pendigits: list of (lever, before_s, after_s, note)."""
    from sklearn.decomposition import KernelPCA as SkKernelPCA

    rows = scratch_rows(X, repeats)  # first: what glibc does with fresh arrays depends on what ran before
    # The fit before scikit-learn's: the first calls after its 1 GB fits (and their spinning BLAS threads)
    # are slow for anything (this fit: 56-70 ms just after, 31-44 ms for the next few, 27-30 ms before)
    fast = ReducedSetKPCA(sigma=SIGMA, ell=ELL, n_components=R, random_state=0)
    fit_after = best_time(lambda: fast.fit(X), repeats)
    sk = {}
    for solver in ("arpack", "randomized"):
        est = SkKernelPCA(n_components=R, kernel="rbf", gamma=1 / SIGMA**2, eigen_solver=solver, random_state=0)
        sk[solver] = best_time(lambda: est.fit(X), repeats)
    fit_before = best_time(lambda: _float64_fit(X), repeats)
    rows.append(("sklearn arpack / RSKPCA fit", sk["arpack"], fit_after,
                 f"goal >= 50x; sklearn randomized {sk['randomized']:.3f} s; solver {fast.eigen_solver_}"))
    rows.append(("RSKPCA fit: float64 path -> levers", fit_before, fit_after, f"m = {fast.centers_.shape[0]}"))
    with one_thread_per_task():
        fit_one = best_time(lambda: fast.fit(X), repeats)
    rows.append(("RSKPCA fit: one thread -> all threads", fit_one, fit_after, f"{all_threads()} BLAS threads"))

    eps = SIGMA / ELL
    s = shadow_centers(X, sigma=SIGMA, ell=ELL)
    C, w = s.centers, s.weights.astype(float)
    with one_thread_per_task():  # the precision levers on one thread, the thread lever after them
        rows.append(("shadow screen float64 -> float32", best_time(lambda: _blas_scan(X, eps, "float64"), repeats),
                     best_time(lambda: _blas_scan(X, eps, "float32"), repeats), "same centers and labels; one thread"))
        k64 = best_time(lambda: kernel_matrix(C, sigma=SIGMA), repeats)
        rows.append(("m x m kernel: float64 -> W K W in place, float64", k64,
                     best_time(lambda: weighted_kernel_matrix(C, w, sigma=SIGMA), repeats), "one thread"))
        wkw_one = best_time(lambda: weighted_kernel_matrix(C, w, sigma=SIGMA, dtype=np.float32), repeats)
        rows.append(("m x m kernel: float64 -> W K W in place, float32", k64, wkw_one, "one thread"))
    rows.append(("W K W float32: one thread -> all threads", wkw_one,
                 best_time(lambda: weighted_kernel_matrix(C, w, sigma=SIGMA, dtype=np.float32), repeats),
                 "row blocks on threads"))
    rows += _block_solve_rows(C, w, repeats)
    eig_before = best_time(lambda: weighted_kpca(kernel_matrix(C, sigma=SIGMA), w, R, eigen_solver="arpack",
                                                 overwrite=True), repeats)
    for solver, precision in (("arpack", "float64"), ("arpack", "float32"), ("block", "float32")):
        t = best_time(lambda: kpca_on_centers(C, w, R, sigma=SIGMA, eigen_solver=solver, precision=precision),
                      repeats)
        used = kpca_on_centers(C, w, R, sigma=SIGMA, eigen_solver=solver, precision=precision).solver
        rows.append((f"kernel + eigen: float64 arpack -> {solver} {precision}", eig_before, t, f"ran {used}"))
    for solver in ("arpack", "block"):
        r = 20
        t0 = best_time(lambda: weighted_kpca(kernel_matrix(C, sigma=SIGMA), w, r, eigen_solver="arpack",
                                            overwrite=True), repeats)
        t1 = best_time(lambda: kpca_on_centers(C, w, r, sigma=SIGMA, eigen_solver=solver), repeats)
        used = kpca_on_centers(C, w, r, sigma=SIGMA, eigen_solver=solver).solver
        rows.append((f"r = 20: float64 arpack -> {solver}", t0, t1, f"ran {used}"))
    # Where "auto" stops trying float32 first (FLOAT32_MAX_COMPONENTS): a failed float32 check is
    # refined by block steps on the float64 matrix, so float32 first pays off up to many components.
    for r in (16, 30, 50):
        t0, t1 = (best_time(lambda: kpca_on_centers(C, w, r, sigma=SIGMA, precision=precision), repeats)
                  for precision in ("float64", "float32"))
        used = kpca_on_centers(C, w, r, sigma=SIGMA, precision="float32").solver
        rows.append((f"r = {r}: float64 -> float32 first", t0, t1,
                     f"ran {used}; auto tries float32 below r = {FLOAT32_MAX_COMPONENTS}"))
    # Where "auto" hands float32 problems from ARPACK to the block solver (BLOCK_MIN_M): m by ell.
    for ell in (3.0, 3.5):
        s = shadow_centers(X, sigma=SIGMA, ell=ell)
        Cs, ws = s.centers, s.weights.astype(float)
        t_arpack, t_block = (best_time(lambda: kpca_on_centers(Cs, ws, R, sigma=SIGMA, eigen_solver=solver,
                                                                precision="float32"), repeats)
                             for solver in ("arpack", "block"))
        rows.append((f"kernel + eigen float32, m = {s.m}: arpack -> block", t_arpack, t_block,
                     f"ell = {ell:g}; auto picks block from m = {BLOCK_MIN_M}"))
    return rows


def accuracy_rows(X):
    """Alignment error of the fast fit's embedding against the dense float64 m x m solution."""
    out = []
    for label, train, test in (("fit on all rows, embed test-file rows", X, X[PENDIGITS_TRAIN_ROWS:]),
                               ("fit on training file, embed held-out test file",
                                X[:PENDIGITS_TRAIN_ROWS], X[PENDIGITS_TRAIN_ROWS:])):
        fast = ReducedSetKPCA(sigma=SIGMA, ell=ELL, n_components=R, random_state=0).fit(train)
        C, w = fast.centers_, fast.weights_
        dense = weighted_kpca(kernel_matrix(C, sigma=SIGMA), w, R, eigen_solver="dense")
        err = alignment_error(_embed(C, dense, test), fast.transform(test))
        lam = float(np.max(np.abs(fast.eigenvalues_ / dense.eigenvalues - 1)))
        out.append((label, err, lam, fast.eigen_solver_))
    return out
