"""Kernel PCA on a weighted set of centers: the linear algebra every estimator shares.

Given centers ``C`` (m x d) and weights ``w`` (sum n), with ``W = diag(sqrt(w))``
and ``p = w / n``, the weighted m x m problem is

* uncentered (Algorithm 1): ``K~ = W K^C W``
* centered: ``K~ = W (I - 1 p^T) K^C (I - p 1^T) W``

and a new point projects as ``z_k(x) = lambda_k^{-1/2} sum_j sqrt(w_j) b_kj (k(c_j, x) - mu_j)``
with ``mu = K^C p`` (zero when uncentered). This is exactly kernel PCA on the
data set in which each center is repeated ``w_j`` times.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import eigh
from scipy.sparse.linalg import ArpackError, ArpackNoConvergence, eigsh

from rskpca.core._centered_operator import CenteredWeightedOperator
from rskpca.core._block_krylov import START_PIVOTS_PER_COLUMN, block_krylov, block_width, pivoted_start
from rskpca.core._scratch import scratch_array
from rskpca.core.threads import blas_threads
from rskpca.core.block_sizes import CACHE_BLOCK_ELEMENTS
from rskpca.core.radial_kernels import FUSED_MAX_RELATIVE_ERROR, float32_relative_error, get_kernel, kernel_matrix
from rskpca.core.weighted_kernel import weighted_kernel_blocks, weighted_kernel_matrix

__all__ = ["WeightedEigen", "weighted_kpca", "kpca_on_centers", "choose_eigen_solver", "EIGEN_SOLVERS",
           "column_signs", "fix_signs", "zero_safe_inverse", "DENSE_MAX_M", "SINGLE_THREAD_MAX_M",
           "PARALLEL_PASS_MIN_M", "SUBSPACE_TOL", "BLOCK_MIN_M",
           "FLOAT32_MAX_COMPONENTS"]

#: Accepted values of ``eigen_solver``.
EIGEN_SOLVERS = ("auto", "dense", "arpack", "block")

#: "auto" uses a dense solver up to this m and a partial one above it (for few components), because
#: from about this m the partial solvers are faster, kernel matrix included (``python
#: tests/benchmarks/bench_speed.py --pendigits PATH``, rows "dense -> partial").
DENSE_MAX_M = 250
#: Up to this m the eigenproblem runs on one BLAS thread. LAPACK and ARPACK gain little from
#: threads at these sizes, and on a busy machine a BLAS pool's threads wait for each other (spin
#: and yield) far longer than the work takes (the runs: tests/benchmarks/RESULTS.md, *Thresholds in the code*).
SINGLE_THREAD_MAX_M = 20_000
#: ...except the block solver's passes over the whole m x m matrix from this m on: their
#: row blocks go to threads (:func:`~rskpca.core.threads.map_row_blocks`, which never
#: waits for a thread the machine is too busy to run, unlike a BLAS pool): a block of vectors
#: gives each thread a GEMM worth its start. ARPACK's single-vector products stay whole: split,
#: they gain nothing (the runs: tests/benchmarks/RESULTS.md, *Thresholds in the code*).
PARALLEL_PASS_MIN_M = 1_000


@dataclass
class WeightedEigen:
    """Result of :func:`weighted_kpca`."""

    eigenvalues: np.ndarray  # (r,) descending, tiny ones set to 0
    eigenvectors: np.ndarray  # (m, r) orthonormal b_k, sign-fixed
    dual_coef: np.ndarray  # (m, r) sqrt(w_j) b_kj / sqrt(lambda_k), 0 where lambda_k = 0
    mu: np.ndarray  # (m,) K^C p, or zeros when uncentered
    solver: str  # which solver ran, in words ("dense", "block-float32", "arpack (fallback from ...)")
    #: precision of the matrix whose eigenvectors were kept: float32 when a float32 answer passed its
    #: accuracy check (it is only that accurate, so projections may use float32 kernels), else float64
    dtype: type = np.float64  # a numpy scalar type (what a model file may hold: skops trusts it, not np.dtype)


#: A float32 or block answer is kept when its subspace is provably within this angle
#: (sine) of the exact float64 one; otherwise the exact ARPACK solver runs in float64.
SUBSPACE_TOL = 1e-3
#: "auto" solves the float32 matrix first only below this many components. With many, the
#: eigengap between component r and r + 1 is small and the float32 answer fails its accuracy
#: certificate; block steps from its vectors on the float64 matrix then certify it, which
#: around this rank costs more than float64 ARPACK saves (``python tests/benchmarks/bench_speed.py``,
#: rows "r = ...: float64 -> float32 first"; the runs: tests/benchmarks/RESULTS.md, *Thresholds in the code*).
FLOAT32_MAX_COMPONENTS = 40
#: "auto" solves a float32 problem with the block solver from this m on, ARPACK below it.
#: ARPACK streams the matrix once per product; the block solver reads the lower half of it
#: (:class:`~rskpca.core.weighted_kernel.SymmetricBlocks`, half built) once per block of
#: products (:func:`~rskpca.core._block_krylov.block_width`), on threads. Below this m, ARPACK's
#: single products of a cache-resident matrix are cheaper than a block's extra columns
#: (``python tests/benchmarks/bench_speed.py``, "arpack -> block" rows at ell = 3 and 3.5, which
#: show where the crossover is on the machine at hand; the runs: tests/benchmarks/RESULTS.md, *Thresholds in the code*).
BLOCK_MIN_M = 2_000
# ARPACK's relative Ritz accuracy on a float32 matrix: its products carry ~1e-7 relative
# rounding, so asking for less than ~1e-6 only adds restarts.
_ARPACK_FLOAT32_TOL = 1e-6


def choose_eigen_solver(m: int, n_components: int | None, eigen_solver: str = "auto") -> str:
    """``"dense"``, ``"arpack"`` or ``"block"`` (block Krylov with a residual check).

    Dense for small m or many components; otherwise ARPACK. (For a float32 problem from
    :data:`BLOCK_MIN_M` on, :func:`kpca_on_centers` runs the block solver instead.)
    """
    if eigen_solver != "auto":
        return eigen_solver
    if n_components is None or m <= DENSE_MAX_M or n_components >= m // 4:
        return "dense"
    return "arpack"


def column_signs(M: np.ndarray) -> np.ndarray:
    """``+1`` or ``-1`` per column: the sign that makes the column's largest-magnitude entry positive.

    Eigenvectors are defined up to sign; fixing it this way makes every solver's
    output (dense, ARPACK, orthogonal iteration) reproducible and comparable.

    >>> column_signs(np.array([[1.0, 2.0], [-3.0, 0.5]])).tolist()
    [-1.0, 1.0]
    """
    pivot = np.argmax(np.abs(M), axis=0)
    signs = np.sign(M[pivot, np.arange(M.shape[1])])
    signs[signs == 0] = 1.0
    return signs


def fix_signs(M: np.ndarray) -> np.ndarray:
    """``M`` with each column flipped so that its largest-magnitude entry is positive.

    >>> fix_signs(np.array([[1.0], [-3.0]])).ravel().tolist()
    [-1.0, 3.0]
    """
    return M * column_signs(M)


def zero_safe_inverse(values: np.ndarray, *, power: float = 1.0) -> np.ndarray:
    """``values ** -power`` where ``values > 0``, and 0 elsewhere.

    A zero (or clipped negative) eigenvalue carries no direction: its projection is
    set to 0 instead of noise divided by a tiny number.

    >>> zero_safe_inverse(np.array([4.0, 0.0]), power=0.5).tolist()
    [0.5, 0.0]
    """
    values = np.asarray(values, dtype=np.float64)
    positive = values > 0
    base = np.where(positive, values, 1.0)
    # 1 / sqrt(x) rather than x ** -0.5: the same bits as the formulas it replaces.
    return np.where(positive, 1.0 / (np.sqrt(base) if power == 0.5 else base**power), 0.0)


def weighted_kpca(KC: np.ndarray, w: np.ndarray, n_components: int | None, *, center: bool = True,
                  eigen_solver: str = "auto", random_state: np.random.RandomState | None = None,
                  overwrite: bool = False) -> WeightedEigen:
    """Top eigenpairs of the weighted (optionally centered) m x m kernel matrix.

    ``n_components=None`` keeps every component with a positive eigenvalue (at
    least one). Eigenvalues below ``1e-12 * sum(w)`` are treated as zero: their
    projections are 0 instead of noise divided by a tiny number. With
    ``overwrite=True`` the caller's ``KC`` is reused as workspace (saves m^2 memory).
    """
    m = KC.shape[0]
    w = np.asarray(w, dtype=np.float64)
    total = float(w.sum())
    p = w / total
    sw = np.sqrt(w)
    mu = KC @ p if center else np.zeros(m)
    g = float(p @ mu)
    K = KC if overwrite else np.empty_like(KC)
    # K~ = W (K^C - mu 1^T - 1 mu^T + g) W, row block by row block, in place: a few
    # cache-resident passes instead of several whole-matrix temporaries.
    step = max(1, CACHE_BLOCK_ELEMENTS // max(m, 1))
    for start in range(0, m, step):
        rows = slice(start, min(m, start + step))
        Kb = K[rows]
        if not overwrite:
            np.copyto(Kb, KC[rows])
        if center:
            Kb -= mu[None, :]
            Kb -= mu[rows, None]
            Kb += g
        Kb *= sw[rows, None]
        Kb *= sw[None, :]

    r = m if n_components is None else int(n_components)
    solver = choose_eigen_solver(m, n_components, eigen_solver)
    with blas_threads(1 if m <= SINGLE_THREAD_MAX_M else None):
        if solver == "arpack" and r < m:
            # Partial solver: only the r wanted pairs, O(m^2 r) per restart instead of O(m^3).
            rng = random_state if random_state is not None else np.random.RandomState(0)
            v0 = rng.uniform(-1.0, 1.0, m)
            vals, vecs = eigsh(K, k=r, which="LA", v0=v0, tol=0.0)
        else:
            solver = "dense"
            vals, vecs = eigh(K, subset_by_index=[m - r, m - 1])
    return _finish(vals, vecs, sw, total, n_components, mu, solver)


def _finish(vals, vecs, sw, total, n_components, mu, solver, dtype=np.float64) -> WeightedEigen:
    """Sort descending, zero the tiny eigenvalues, fix signs, scale the dual coefficients."""
    order = np.argsort(vals)[::-1]
    vals, vecs = vals[order], vecs[:, order]
    vals = np.where(vals > 1e-12 * total, vals, 0.0)
    if n_components is None:
        keep = max(1, int(np.count_nonzero(vals)))
        vals, vecs = vals[:keep], vecs[:, :keep]

    coef = sw[:, None] * vecs
    # Deterministic signs: the largest |coefficient| of each component is positive.
    signs = column_signs(coef)
    vecs = vecs * signs
    coef = coef * signs
    return WeightedEigen(vals, vecs, coef * zero_safe_inverse(vals, power=0.5), mu, solver, np.dtype(dtype).type)


def _arpack(op, k, rng, tol, start=None):
    """Top k eigenpairs by ARPACK; ``start`` (m x j), approximate eigenvectors, seeds the Krylov space."""
    v0 = rng.uniform(-1.0, 1.0, op.shape[0])
    if start is not None:
        # Mostly in the wanted subspace (a little noise keeps every direction reachable).
        v0 = start @ rng.uniform(0.5, 1.0, start.shape[1]) + 1e-3 * v0 / np.sqrt(op.shape[0])
    vals, vecs = eigsh(op, k=k, which="LA", v0=v0, tol=tol)
    order = np.argsort(vals)[::-1]
    return vals[order], vecs[:, order]


def kpca_on_centers(C, w, n_components: int | None, *, sigma: float, kernel="gaussian",
                    center: bool = True, eigen_solver: str = "auto", precision: str = "auto",
                    random_state: np.random.RandomState | None = None) -> WeightedEigen:
    """:func:`weighted_kpca` of the kernel matrix of centers ``C``, built in its cheapest form.

    For a partial solve (``choose_eigen_solver`` gives ARPACK or the block solver) the
    weighted matrix ``W K W`` is built once (:func:`~rskpca.core.weighted_kernel.weighted_kernel_matrix`,
    float32 for the Gaussian when ``precision="auto"``) and centered implicitly. A float32
    or block answer is accepted only if its subspace is within ``SUBSPACE_TOL`` of the exact
    one by the Davis-Kahan bound ``(||R||_F + ||E||_2) / (theta_r - theta_{r+1})``, with
    ``R`` the Ritz residuals and ``||E||_2 <= delta ||W K W||_inf`` the float32 error
    (Davis & Kahan 1970; ``delta`` from :func:`~rskpca.core.radial_kernels.float32_relative_error`).
    Otherwise block Krylov steps from the float32 vectors on the float64 matrix are checked the
    same way (no float32 error left), and exact ARPACK runs if they fail too. ``solver`` in the
    result says which ran, in words; ``dtype`` is the precision of the matrix the kept answer
    came from (float32 only when the float32 answer itself passed).
    """
    C = np.asarray(C, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    m = C.shape[0]
    solver = choose_eigen_solver(m, n_components, eigen_solver)
    if solver == "dense" or n_components is None or n_components + 1 >= m or np.any(w <= 0):
        KC = kernel_matrix(C, sigma=sigma, kernel=kernel)
        return weighted_kpca(KC, w, n_components, center=center, eigen_solver=solver,
                             random_state=random_state, overwrite=True)
    if precision not in ("auto", "float32", "float64"):
        raise ValueError(f"precision must be 'auto', 'float32' or 'float64', got {precision!r}.")
    gaussian = get_kernel(kernel).p == 2
    if precision == "float32" and not gaussian:
        raise ValueError("precision='float32' is only offered for the Gaussian kernel; use 'float64'.")
    delta32 = float32_relative_error(C, sigma, w) if gaussian else np.inf
    dtype = np.float32 if precision == "float32" or (
        precision == "auto" and gaussian and int(n_components) < FLOAT32_MAX_COMPONENTS
        # (sigma tiny against the centers' spread: float32 could not pass the check below)
        and delta32 <= FUSED_MAX_RELATIVE_ERROR) else np.float64
    if eigen_solver == "auto" and dtype == np.float32 and m >= BLOCK_MIN_M:
        solver = "block"
    rng = random_state if random_state is not None else np.random.RandomState(0)
    r = int(n_components)
    total, sw = float(w.sum()), np.sqrt(w)
    with blas_threads(1 if m <= SINGLE_THREAD_MAX_M else None), scratch_array((m, m), dtype) as scratch:
        # The block solver's products stream the whole matrix: its lower half serves them
        # with half the traffic and half the build. ARPACK's one-vector products stay dense.
        build = weighted_kernel_blocks if solver == "block" else weighted_kernel_matrix
        M, M_sw = build(C, w, sigma=sigma, kernel=kernel, dtype=dtype, times=sw, out=scratch)
        op = CenteredWeightedOperator(M, sw, center, parallel=m >= PARALLEL_PASS_MIN_M, M_sw=M_sw)
        delta = delta32 if dtype == np.float32 else 0.0
        # ||W E W||_2 <= delta ||W K W||_2 (E is entrywise below delta K, K >= 0), and by
        # Collatz-Wielandt ||W K W||_2 <= max_i (M s)_i / s_i for the positive vector s = sqrt(w),
        # which the centering already computed (a = M s / n).
        e_norm = 0.0
        if delta:
            Ms = np.asarray(M_sw, dtype=np.float64)
            e_norm = delta * float(np.max(Ms / sw))

        def accurate(theta, resid, matrix_error=e_norm):
            gap = theta[r - 1] - theta[r]
            return gap > 0 and (np.linalg.norm(resid[:r]) + matrix_error) <= SUBSPACE_TOL * gap

        def hopeless(theta, resid):
            # The residuals alone would pass, so the Ritz values (and the gap) are already
            # accurate: if the float32 error alone fails, no further step can pass.
            gap = theta[r - 1] - theta[r]
            return gap <= 0 or np.linalg.norm(resid[:r]) <= SUBSPACE_TOL * gap < e_norm

        name = f"{solver}-float32" if dtype == np.float32 else solver
        found, candidate = None, None
        if solver == "block":
            # started from a pivoted Cholesky of the operator, not random unit vectors: one
            # pass fewer on pendigits, and the same answer whatever the random state
            b = block_width(r + 1)
            start = pivoted_start(op.column, op.diagonal(), b, START_PIVOTS_PER_COLUMN * b)
            theta, V, ok = block_krylov(op, r + 1, rng, tol_of=accurate, hopeless=hopeless, start=start)
            found, candidate = ((theta, V) if ok else None), V
        elif dtype == np.float32:
            try:
                # ARPACK stops when every Ritz residual is below tol * |theta|: that is R.
                theta, V = _arpack(op, r + 1, rng, tol=_ARPACK_FLOAT32_TOL)
                candidate = V
                found = (theta, V) if accurate(theta, _ARPACK_FLOAT32_TOL * np.abs(theta)) else None
            except (ArpackNoConvergence, ArpackError):
                found = None
        else:  # float64 ARPACK: the exact solver itself
            found = _arpack(op, r, rng, tol=0.0)
        kept_dtype = dtype  # the float32 answer's precision, unless it is replaced below
        if found is None:
            kept_dtype = np.float64
            failed = name
            name = f"arpack (fallback from {failed})"
            if dtype != np.float64:
                # the float64 matrix as its lower half, as the block solver's own: half the
                # exponentials to build and half the traffic per block step
                M, M_sw = weighted_kernel_blocks(C, w, sigma=sigma, kernel=kernel, dtype=np.float64, times=sw)
                op = CenteredWeightedOperator(M, sw, center, parallel=m >= PARALLEL_PASS_MIN_M, M_sw=M_sw)
            if candidate is not None and dtype != np.float64:
                # The float32 vectors are close (their error is the float32 matrix's, which is
                # what failed the check): on the float64 matrix, with no float32 error left, a
                # block step or two from them is certified by the same check, fewer products than
                # ARPACK started from one of their combinations needs.
                theta, V, ok = block_krylov(op, r + 1, rng, max_steps=3, start=candidate,
                                            tol_of=lambda t, res: accurate(t, res, matrix_error=0.0))
                if ok:
                    found, name = (theta, V), f"block (refined from {failed})"
                else:
                    candidate = V
            if found is None:
                # The float32 vectors, though not certified, start the exact solve close to its answer.
                found = _arpack(op, r, rng, tol=0.0, start=None if candidate is None else candidate[:, :r])
    vals, vecs = found[0][:r], found[1][:, :r]
    mu = op.a / sw  # a = W mu: mu = K p, the centers' kernel means (zero when uncentered)
    return _finish(vals, vecs, sw, total, n_components, mu, name, kept_dtype)
