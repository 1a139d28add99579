"""Before/after timings of the speed levers of the reduced-set fit, measured in one run.

``python -m rskpca.evaluation.bench_speed --pendigits /work/shared/datasets/pendigits.csv``

Prints, with the date, the machine load (``uptime``) before and after and the command:

* **fit**: scikit-learn's ``KernelPCA`` (arpack and randomized) against
  ``ReducedSetKPCA(sigma=120, ell=4, n_components=5).fit`` on all pendigits rows, and
  each lever of the fit (shadow screen precision, the m x m kernel, the eigensolver)
  timed before (the float64 path: ``kernel_matrix`` + :func:`weighted_kpca`) and after
  (:func:`kpca_on_centers`); the embedding of held-out rows is compared with the
  float64 dense solution of the same m x m problem (``alignment_error``);
* **shadow path**: grid, GEMM screen and ``auto`` on 1-3-d data, auto over the better;
* **IterativeKPCA** against scikit-learn's arpack (blocks kept, and recomputed);
* **projection**: transform time over its GEMM floor (the ``n_new x m x d`` GEMM alone);
* **exact solvers at the app's sizes**: scikit-learn's arpack and randomized ``KernelPCA``
  as the app times them (:func:`~rskpca.evaluation.compare.fit_exact`) on every bundled
  sample and a 2,000-row sample of pendigits (the app's comparison sets), r = 2, 5, 10, 20:
  the evidence for the Speedups page timing arpack only unless asked; exact KPCA with and without
  projecting the training rows again (how Embeddings fits it); and two of the app's
  fits (arpack, density-weighted Nystrom's k-means) with the libraries' threads and with one BLAS
  and OpenMP thread, the other core idle and busy (why the app fits its comparisons on one); these
  rows are :mod:`rskpca.evaluation.bench_app_fits`'s.

Every timing is the best of ``--repeats`` runs after one warm-up run (the memory-bounded
IterativeKPCA on the first 4000 rows, where recomputing every block per product stays short). ``--csv PATH`` also
writes the rows (``after_over_before``: for the projection, transform time over the GEMM
floor; for the shadow path, auto over the better of grid and screen); an existing file is
never overwritten (a suffix ``-1``, ``-2``... is added).
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
from contextlib import contextmanager

import numpy as np

from rskpca.core._threads import all_threads, blas_threads, one_thread_per_task
from rskpca.core._block_krylov import START_PIVOTS_PER_COLUMN, block_krylov, block_width, pivoted_start
from rskpca.core import _scratch
from rskpca.core._scratch import scratch_array
from rskpca.core.eigen import (BLOCK_MIN_M, DENSE_MAX_M, FLOAT32_MAX_COMPONENTS, SUBSPACE_TOL, _CenteredWeighted,
                               kpca_on_centers, weighted_kpca)
from rskpca.evaluation import timing
from rskpca.evaluation.timing import machine_load
from rskpca.core.kernel_evaluation import kernel_matrix, kernel_matvec
from rskpca.core.weighted_kernel import weighted_kernel_blocks, weighted_kernel_matrix
from rskpca.core.metrics import alignment_error
from rskpca.core._shadow_grid import _grid_cells, _grid_scan
from rskpca.core._shadow_screen import _blas_scan
from rskpca.core.shadow import _dispatch_backend, shadow_centers
from rskpca.decomposition._iterative import IterativeKPCA
from rskpca.decomposition._reduced_set import ReducedSetKPCA

SIGMA, ELL, R = 120.0, 4.0, 5
#: UCI pendigits: the first 7494 rows are the training file, the rest the test file.
PENDIGITS_TRAIN_ROWS = 7494


def best_time(fn, repeats: int) -> float:
    """Best wall time of ``repeats`` calls of ``fn`` after one warm-up call (rskpca.evaluation.timing)."""
    return timing.best_time(fn, timing.Timing(repeats=repeats, warmup=1))[1]


def fresh_path(path: str) -> str:
    """``path``, or ``stem-1.ext``, ``stem-2.ext``... the first that does not exist yet."""
    stem, ext = os.path.splitext(path)
    k, out = 0, path
    while os.path.exists(out):
        k += 1
        out = f"{stem}-{k}{ext}"
    return out


def load_pendigits(path: str) -> np.ndarray:
    """Features of ``pendigits.csv`` (header row, label last), as given (not standardised)."""
    return _load_labelled(path)


def _load_labelled(path: str) -> np.ndarray:
    """Features of a CSV (``.gz`` too) with a header row and the label last."""
    return np.loadtxt(path, delimiter=",", skiprows=1)[:, :-1]


def _float64_fit(X, sigma=SIGMA, ell=ELL, r=R):
    """The fit before the levers: float64 screen, float64 kernel matrix, centering pass, ARPACK."""
    idx, labels, _ = _blas_scan(X, sigma / ell, "float64")
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


def _block_solve_rows(C, w, repeats):
    """The block solve's parts: the lower half built into fresh pages or the scratch buffer, and the
    Krylov block's width (:func:`~rskpca.core._block_krylov.block_width`), 2k -> k columns, r = R.

    With one BLAS thread, as :func:`kpca_on_centers` runs it (the products' row blocks go to threads).
    """
    with blas_threads(1):
        return _block_solve_rows_inside(C, w, repeats)


def _block_solve_rows_inside(C, w, repeats):
    sw = np.sqrt(w)
    blocks, M_sw = weighted_kernel_blocks(C, w, sigma=SIGMA, dtype=np.float32, times=sw)
    op = _CenteredWeighted(blocks, sw, True, parallel=True, M_sw=M_sw)
    k = R + 1
    rows = []
    V = {b: np.random.RandomState(0).standard_normal((len(w), b)).astype(np.float32) for b in (2 * k, k)}
    pass_s = {b: best_time(lambda: blocks.matmat(V[b]), repeats) for b in V}
    wide, narrow = (8 * -(-b // 8) for b in (2 * k, k))
    with scratch_array((len(w), len(w)), np.float32) as out:
        rows.append(("W K W float32 lower half: fresh pages -> scratch buffer",
                     best_time(lambda: weighted_kernel_blocks(C, w, sigma=SIGMA, dtype=np.float32, times=sw), repeats),
                     best_time(lambda: weighted_kernel_blocks(C, w, sigma=SIGMA, dtype=np.float32, times=sw, out=out),
                               repeats), "the build kpca_on_centers runs"))
    rows.append((f"block Krylov pass: {wide} -> {narrow} columns", pass_s[2 * k], pass_s[k],
                 f"m = {len(w)}; one product with the float32 lower half"))

    def certified(theta, resid):  # the fit's check without the float32 term (same for both)
        gap = theta[R - 1] - theta[R]
        return gap > 0 and np.linalg.norm(resid[:R]) <= SUBSPACE_TOL * gap

    passes, solve_s = {}, {}
    for b in (wide, narrow):
        counted = _CountedProducts(op)
        block_krylov(counted, k, np.random.RandomState(0), tol_of=certified, width=b)
        passes[b] = counted.products
        solve_s[b] = best_time(lambda: block_krylov(op, k, np.random.RandomState(0), tol_of=certified, width=b),
                               repeats)
    rows.append((f"block Krylov width, r = {R}: {wide} -> {narrow} columns", solve_s[wide], solve_s[narrow],
                 f"passes {passes[wide]} -> {passes[narrow]} (kernel built once, not timed)"))
    rows.append(_start_row(op, k, certified, repeats))
    return rows


def _start_row(op, k, certified, repeats):
    """The block solve from random unit columns (best over seeds 0-4) -> from :func:`pivoted_start` (its cost included)."""
    b = block_width(k)

    def pivoted():
        start = pivoted_start(op.column, op.diagonal(), b, START_PIVOTS_PER_COLUMN * b)
        return block_krylov(op, k, np.random.RandomState(0), tol_of=certified, start=start)

    random_passes = []
    for seed in range(5):
        counted = _CountedProducts(op)
        block_krylov(counted, k, np.random.RandomState(seed), tol_of=certified)
        random_passes.append(counted.products)
    counted = _CountedProducts(op)
    block_krylov(counted, k, np.random.RandomState(0), tol_of=certified,
                 start=pivoted_start(op.column, op.diagonal(), b, START_PIVOTS_PER_COLUMN * b))
    random_s = min(best_time(lambda: block_krylov(op, k, np.random.RandomState(seed), tol_of=certified), repeats)
                   for seed in range(5))
    return (f"block Krylov start, r = {R}: random -> pivoted Cholesky", random_s, best_time(pivoted, repeats),
            f"passes {'/'.join(map(str, random_passes))} (seeds 0-4) -> {counted.products}; "
            f"{START_PIVOTS_PER_COLUMN * b} pivots, their cost included")


class _CountedProducts:
    """An operator's products counted (the first block's columns are read, not multiplied)."""

    def __init__(self, op):
        self.op, self.shape, self.products = op, op.shape, 0

    def matmat(self, V):
        self.products += 1
        return self.op.matmat(V)

    def columns(self, cols):
        return self.op.columns(cols)


def screen_thread_rows(X, repeats, usps=None):
    """The shadow screen on one thread and with threads (its row parts, BLAS's own), by the data's
    width: pendigits (d = 16) at the fit's eps, the digits sample (d = 64) and, given its path,
    5,000 rows of usps (d = 256), at ell = 2 and 4 of the median distance."""
    from rskpca.data.bandwidth import median_distance
    from rskpca.data.samples import load_sample

    sets = [("pendigits", X, [SIGMA / ELL])]
    digits = load_sample("digits").drop(columns="label").to_numpy(dtype=np.float64)
    sets.append(("digits", digits, [median_distance(digits) / ell for ell in (2.0, 4.0)]))
    if usps is not None:
        U = _load_labelled(usps)[:5000]
        sets.append(("usps (5,000 rows)", U, [median_distance(U) / ell for ell in (2.0, 4.0)]))
    rows = []
    for name, Z, epss in sets:
        Z = np.ascontiguousarray(Z)
        for eps in epss:
            with one_thread_per_task():
                one = best_time(lambda: _blas_scan(Z, eps), repeats)
            rows.append((f"shadow screen one thread -> threads, {name}", one, best_time(lambda: _blas_scan(Z, eps), repeats),
                         f"d = {Z.shape[1]}, m = {len(_blas_scan(Z, eps)[0])}"))
    return rows


def dense_crossover_rows(repeats):
    """Dense -> partial eigensolver (what "auto" runs above ``DENSE_MAX_M``) at m between 150 and 550, r = 5:
    the bundled samples two moons, circles and digits at their sigma and ell = 1.5 to 4."""
    from rskpca.core.bandwidth_heuristic import median_heuristic
    from rskpca.data.samples import SAMPLES, load_sample

    rows, seen = [], set()
    for name in ("two_moons", "circles", "digits"):
        Z = load_sample(name).drop(columns="label").to_numpy(dtype=np.float64)
        sigma = SAMPLES[name].sigma or median_heuristic(Z)
        for ell in (1.5, 2.0, 3.0, 4.0):
            s = shadow_centers(Z, sigma=sigma, ell=ell)
            if not 150 <= s.m <= 550 or (name, s.m) in seen:
                continue
            seen.add((name, s.m))
            C, w = s.centers, s.weights.astype(float)
            dense, partial = (best_time(lambda: kpca_on_centers(C, w, R, sigma=sigma, eigen_solver=solver), repeats)
                              for solver in ("dense", "arpack"))
            used = kpca_on_centers(C, w, R, sigma=sigma, eigen_solver="arpack").solver
            rows.append((f"eigen r = {R}, {name} m = {s.m}: dense -> partial", dense, partial,
                         f"ran {used}; auto dense up to m = {DENSE_MAX_M}"))
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


def shadow_path_rows(repeats, n=200_000):
    """(d, eps, m, path, grid_s, blas_s, auto_s) on standard normal data."""
    rng = np.random.default_rng(0)
    cases = {1: (0.06, 0.03, 0.015, 0.004), 2: (0.7, 0.25, 0.12, 0.09, 0.06), 3: (0.5, 0.25, 0.18, 0.12)}
    out = []
    with one_thread_per_task():
        for d, epss in cases.items():
            X = rng.normal(size=(n, d))
            for eps in epss:
                # the grid as algorithm="grid" runs it: cells built inside the timing, as "auto" must
                grid = best_time(lambda: _grid_scan(X, eps, *_grid_cells(X, eps)), repeats)
                blas = best_time(lambda: _blas_scan(X, eps), repeats)
                auto = best_time(lambda: _dispatch_backend(X, eps, "auto"), repeats)
                rows, _, path = _dispatch_backend(X, eps, "auto")
                out.append((d, eps, rows.size, path, grid, blas, auto))
    return out


def iterative_rows(X, repeats, n_bounded=4000):
    """IterativeKPCA against scikit-learn's arpack: all rows with the blocks kept, and the
    memory-bounded mode (blocks recomputed per product) on the first ``n_bounded`` rows."""
    from sklearn.decomposition import KernelPCA as SkKernelPCA

    def sk_fit(Xs):
        return SkKernelPCA(n_components=R, kernel="rbf", gamma=1 / SIGMA**2, eigen_solver="arpack",
                           random_state=0).fit(Xs)

    kept = IterativeKPCA(n_components=R, sigma=SIGMA, random_state=0)
    bounded = IterativeKPCA(n_components=R, sigma=SIGMA, cache_bytes=0, random_state=0)
    Xb = X[:n_bounded]
    return [("IterativeKPCA blocks kept (sklearn arpack -> ours)", best_time(lambda: sk_fit(X), repeats),
             best_time(lambda: kept.fit(X), repeats), f"{kept.cached_kernel_bytes_ / 2**20:.0f} MiB kept"),
            (f"IterativeKPCA recomputed, n={n_bounded} (sklearn arpack -> ours)",
             best_time(lambda: sk_fit(Xb), repeats), best_time(lambda: bounded.fit(Xb), repeats),
             f"memory: one block; {bounded.n_matvec_} products")]


def projection_rows(X, repeats, n_new=100_000):
    """Transform of n_new rows: before (unfused float64), after, and the GEMM floor."""
    est = ReducedSetKPCA(sigma=SIGMA, ell=ELL, n_components=R, random_state=0).fit(X)
    rng = np.random.default_rng(1)
    Xn = X[rng.integers(0, X.shape[0], n_new)] + rng.normal(scale=0.5, size=(n_new, X.shape[1]))
    C, A = est.centers_, est.dual_coef_
    step = max(1, 4_000_000 // C.shape[0])

    def before():
        for s in range(0, n_new, step):
            kernel_matrix(Xn[s:s + step], C, sigma=SIGMA) @ A

    def floor():
        for s in range(0, n_new, step):
            Xn[s:s + step] @ C.T

    t_floor = best_time(floor, repeats)
    t_before = best_time(before, repeats)
    t_after = best_time(lambda: est.transform(Xn), repeats)
    flops = 2.0 * n_new * C.shape[0] * C.shape[1]
    return t_floor, t_before, t_after, flops / t_floor / 1e9, est.eigen_solver_


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pendigits", required=True, help="path of pendigits.csv")
    parser.add_argument("--usps", default=None, help="path of usps.csv.gz: adds its rows to the screen's thread rows")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs (after a warm-up)")
    parser.add_argument("--csv", default=None, help="also write the rows here (never overwritten)")
    parser.add_argument("--skip", nargs="*", default=(), choices=("fit", "shadow", "iterative", "projection", "solvers"))
    args = parser.parse_args(argv)
    from rskpca.evaluation.bench_app_fits import app_embedding_rows, app_solver_rows, app_thread_rows

    X = load_pendigits(args.pendigits)
    print(f"# bench_speed {datetime.datetime.now().isoformat(timespec='seconds')}")
    print(f"# command: python -m rskpca.evaluation.bench_speed {' '.join(argv or sys.argv[1:])}")
    print(f"# load before: {machine_load()}")
    print(f"# pendigits {X.shape[0]} x {X.shape[1]}, sigma={SIGMA:g}, ell={ELL:g}, r={R}; best of {args.repeats}")
    csv = []
    lever_rows = []
    if "fit" not in args.skip:
        lever_rows += fit_rows(X, args.repeats)
        lever_rows += screen_thread_rows(X, args.repeats, args.usps)
        lever_rows += dense_crossover_rows(args.repeats)
    if "iterative" not in args.skip:
        lever_rows += iterative_rows(X, args.repeats)
    if lever_rows:
        print(f"\n{'lever':<58} {'before_s':>9} {'after_s':>9} {'before/after':>12}  note")
        for lever, b, a, note in lever_rows:
            print(f"{lever:<58} {b:9.4f} {a:9.4f} {b / a:12.2f}  {note}")
            csv.append(("lever", lever, b, a, a / b, note))
    if "fit" not in args.skip:
        print(f"\n{'accuracy (vs float64 dense m x m solution)':<50} {'align_err':>10} {'max_rel_eig_err':>15}  solver")
        for label, err, lam, used in accuracy_rows(X):
            print(f"{label:<50} {err:10.2e} {lam:15.2e}  {used}")
            csv.append(("accuracy", label, "", "", "", f"align_err={err:.3e}; max_rel_eig_err={lam:.3e}; {used}"))
    if "shadow" not in args.skip:
        print(f"\n{'d':>2} {'eps':>6} {'m':>6} {'auto path':>10} {'grid_s':>8} {'screen_s':>8} {'auto_s':>8} "
              f"{'auto/best':>9}   (n = 200,000 standard normal, one BLAS thread)")
        for d, eps, m, path, g, b, a in shadow_path_rows(args.repeats):
            print(f"{d:>2} {eps:6.3f} {m:6d} {path:>10} {g:8.4f} {b:8.4f} {a:8.4f} {a / min(g, b):9.2f}")
            csv.append(("shadow", f"d={d} eps={eps} m={m}", min(g, b), a, a / min(g, b),
                        f"before = better of grid {g:.4f} and screen {b:.4f}; after = auto ({path})"))
    if "projection" not in args.skip:
        t_floor, t_before, t_after, rate, used = projection_rows(X, args.repeats)
        print(f"\nprojection of 100,000 rows (m x d GEMM floor {t_floor:.4f} s at {rate:.1f} GFlop/s, fit {used}):")
        print(f"  before (unfused float64) {t_before:.4f} s = {t_before / t_floor:.2f}x floor; "
              f"after {t_after:.4f} s = {t_after / t_floor:.2f}x floor (goal <= 2x)")
        csv.append(("projection", "transform 1e5 rows", t_floor, t_after, t_after / t_floor,
                    f"before = GEMM floor; unfused float64 transform {t_before:.4f} s"))
    if "solvers" not in args.skip:
        print(f"\n{'exact KPCA at the app sizes':<28} {'n':>5} {'r':>3} {'arpack_s':>9} {'randomized_s':>12} "
              f"{'randomized/arpack':>17}")
        for name, n, r, a, b in app_solver_rows(X, args.repeats):
            print(f"{name:<28} {n:>5} {r:>3} {a:9.4f} {b:12.4f} {b / a:17.2f}")
            csv.append(("solvers", f"{name} n={n} r={r}", a, b, b / a, "before = arpack; after = randomized"))
        print(f"\n{'exact KPCA for Embeddings':<28} {'n':>5} {'r':>3} {'projected_s':>11} {'fit_only_s':>10} "
              f"{'projected/fit_only':>18}   (arpack, one thread)")
        for name, n, r, a, b in app_embedding_rows(X, args.repeats):
            print(f"{name:<28} {n:>5} {r:>3} {a:11.4f} {b:10.4f} {a / b:18.2f}")
            csv.append(("embedding", f"{name} n={n} r={r}", a, b, b / a, "before = fit + projection; after = fit alone"))
        print(f"\n{'app fits and threads':<22} {'fit':<25} {'threads':>7} {'quiet_s':>9} {'busy_core_s':>12}   "
              f"(fit + transform, r = {R}, median of 7; busy: a process spinning beside it; "
              "threads: the libraries' default or one BLAS and OpenMP thread)")
        for name, fit, threads, quiet, busy in app_thread_rows(X):
            print(f"{name:<22} {fit:<25} {threads:>7} {quiet:9.4f} {busy:12.4f}")
            csv.append(("threads", f"{name} {fit} threads={threads}", quiet, busy, busy / quiet,
                        "before = quiet; after = busy"))
    print(f"\n# load after: {machine_load()}")
    if args.csv:
        path = fresh_path(args.csv)
        with open(path, "w") as fh:
            fh.write("table,row,before_s,after_s,after_over_before,note\n")
            for row in csv:
                fh.write(",".join(str(v).replace(",", ";") for v in row) + "\n")
        print(f"# wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
