"""The eigensolver's rows of ``python tests/benchmarks/bench_speed.py``: the block solve's parts and
where "auto" leaves the dense solver.

Apart from the fit's levers because they time the solver alone, on a kernel built once (the settings
behind ``BLOCK_MIN_M``, ``DENSE_MAX_M`` and :func:`~rskpca.core._block_krylov.block_width`'s width).
"""

from __future__ import annotations

import numpy as np

from rskpca.core.threads import blas_threads
from rskpca.core._block_krylov import START_PIVOTS_PER_COLUMN, block_krylov, block_width, pivoted_start
from rskpca.core._scratch import scratch_array
from rskpca.core.eigen import DENSE_MAX_M, SUBSPACE_TOL, CenteredWeightedOperator, kpca_on_centers
from rskpca.core.weighted_kernel import weighted_kernel_blocks
from rskpca.core.shadow import shadow_centers
from bench_speed_settings import R, SIGMA, best_time


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
    op = CenteredWeightedOperator(blocks, sw, True, parallel=True, M_sw=M_sw)
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
    """The block solve from random unit columns (best over seeds 0-4) -> from :func:`pivoted_start`
    (its cost included)."""
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
