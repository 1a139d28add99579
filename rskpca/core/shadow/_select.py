"""The entry point's work: check the arguments, pick the path, map a random visiting order back.

:func:`shadow_centers` scans the rows (the compiled loop or the GEMM screen, see
:mod:`rskpca.core.shadow`); :func:`shadow_centers_from_table` reads the same shadow off a table of
distances to earlier rows, for callers that need it at many radii.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from rskpca.core.threads import blas_threads
from rskpca.core.validation import check_array_2d, check_positive
from rskpca.core.bandwidth_heuristic import resolve_sigma
from rskpca.core.radial_kernels import get_kernel
from rskpca.core.shadow._compiled import compiled_available, compiled_earliest_center, compiled_scan
from rskpca.core.shadow._earlier_distances import EarlierDistances
from rskpca.core.shadow._result import ShadowResult, shadow_result
from rskpca.core.shadow._screen import _blas_scan, blas_earliest_center

__all__ = ["shadow_centers", "shadow_centers_from_table", "earliest_center_within", "SHADOW_ALGORITHMS",
           "COMPILED_MAX_DIM"]

#: Accepted values of ``shadow_centers(..., algorithm=)``.
SHADOW_ALGORITHMS = ("auto", "compiled", "blas")
#: "auto" runs the compiled scan up to this many features and the screen above it: the compiled
#: scan prunes on the leading principal axes, which leave more candidates to its d-term exact test
#: the more axes the data spread over, while the screen's GEMM gets more efficient with d. Up to
#: d = 16 the compiled scan is the faster, at d = 64 and 256 the screen can be, as the rows
#: "shadow screen (threads) -> compiled" of ``python tests/benchmarks/bench_speed.py
#: --pendigits PATH --usps PATH`` measure.
COMPILED_MAX_DIM = 32

# Up to this n * d the scan runs on one BLAS thread: its GEMMs are too small to share,
# and threads that wait on each other cost more than they give on a busy machine (the screen's
# thread rows of ``python tests/benchmarks/bench_speed.py --pendigits PATH`` measure both).
_SINGLE_THREAD_MAX_ND = 200_000


def _shadow_scan(X: np.ndarray, eps: float, algorithm: str = "auto"):
    """Fast Algorithm 2 on float64 X in visiting order: (center_rows, labels, algorithm used)."""
    threads = 1 if X.size <= _SINGLE_THREAD_MAX_ND else None
    with blas_threads(threads):
        return _dispatch_backend(X, eps, algorithm)


def _dispatch_backend(X: np.ndarray, eps: float, algorithm: str):
    """Run the compiled scan or the BLAS screen, as ``algorithm`` asks and the data allows."""
    found = _compiled_if_chosen(lambda: compiled_scan(X, eps), X.shape[1], algorithm)
    if found is not None:
        return (*found, "compiled")
    return (*_blas_scan(X, eps), "blas")


def _compiled_if_chosen(run, d: int, algorithm: str):
    """``run()`` (a compiled path) where ``algorithm`` and d choose it; None where the BLAS path is to run.

    None also where "auto" chose the compiled path and ``run`` found the data near the float64
    range, which the screen takes by rescaling its coordinates.
    """
    if not (algorithm == "compiled" or (algorithm == "auto" and d <= COMPILED_MAX_DIM and compiled_available())):
        return None
    if not compiled_available():
        raise ValueError("algorithm='compiled' needs numba, which could not be imported; "
                         "reinstall rskpca (numba is a dependency) or use algorithm='blas'.")
    found = run()
    if found is None and algorithm == "compiled":
        raise ValueError("algorithm='compiled' cannot project this data (values near the float64 range); "
                         "use algorithm='blas' (or 'auto', which picks it).")
    return found


def _check_algorithm(algorithm: str) -> None:
    if algorithm == "grid":
        raise ValueError("algorithm='grid' (the hash grid for d <= 3) was removed: 'auto' and 'compiled' "
                         "cover low-dimensional data (the compiled scan is faster there), with the same result.")
    if algorithm not in SHADOW_ALGORITHMS:
        raise ValueError(f"algorithm must be one of {SHADOW_ALGORITHMS}, got {algorithm!r}.")


def shadow_centers(X, *, sigma: float | str, ell: float, kernel: str = "gaussian",
                   order: str = "input", random_state=None, algorithm: str = "auto") -> ShadowResult:
    """Select shadow centers with ``eps = sigma / ell`` (Algorithm 2).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Real data; NaN, inf, complex values and text are refused with a message
        naming the fix.
    sigma : float or "median"
        Kernel bandwidth (``k = exp(-||x-y||^2 / sigma^2)`` for the Gaussian).
        "median": :func:`~rskpca.median_heuristic`, the value the estimators'
        ``sigma="median"`` take (the result's ``sigma`` holds it).
    ell : float
        Shadow parameter; the radius is ``sigma / ell``. Larger ell gives more centers.
    kernel : {"gaussian", "laplacian"}, default="gaussian"
        Recorded for the bounds; the selection only depends on eps.
    order : {"input", "random"}, default="input"
        Visit points in input order (the paper) or in a random order drawn from
        ``random_state``. Indices and labels always refer to the original rows.
    random_state : int, RandomState instance or None, default=None
        Seed for ``order="random"``.
    algorithm : {"auto", "compiled", "blas"}, default="auto"
        How candidate pairs are found; the result is identical. "compiled" is the
        in-order loop compiled with numba, candidates from a grid over the leading
        principal axes; "blas" screens blocks of rows with GEMMs. "auto" runs
        "compiled" up to ``COMPILED_MAX_DIM`` features and "blas" above it (and for
        data near the float64 range, which the compiled scan cannot project).

    Returns
    -------
    ShadowResult
        ``centers``, ``center_indices``, ``weights`` (sum n), ``labels``, ``eps``,
        ``algorithm``.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import shadow_centers
    >>> X = np.array([[0.0], [0.1], [1.0], [1.05], [5.0]])
    >>> s = shadow_centers(X, sigma=1.0, ell=4.0)
    >>> s.center_indices.tolist(), s.weights.tolist(), s.labels.tolist()
    ([0, 2, 4], [2, 2, 1], [0, 0, 1, 1, 2])
    >>> s.algorithm, shadow_centers(X, sigma=1.0, ell=4.0, algorithm="blas").labels.tolist()
    ('compiled', [0, 0, 1, 1, 2])
    """
    X = check_array_2d(X, name="X")
    sigma = resolve_sigma(sigma, X)
    ell = check_positive(ell, "ell")
    get_kernel(kernel)
    eps = sigma / ell
    if not np.isfinite(eps * eps) or eps * eps == 0.0:
        raise ValueError(
            f"eps = sigma / ell = {eps!r} has a square that is 0 or overflows in float64; "
            "choose sigma and ell so that sigma / ell lies roughly in [1e-150, 1e150]."
        )
    if order not in ("input", "random"):
        raise ValueError(f"order must be 'input' or 'random', got {order!r}.")
    _check_algorithm(algorithm)
    n = X.shape[0]
    if order == "random":
        perm = check_random_state(random_state).permutation(n)
        idx_p, labels_p, used = _shadow_scan(np.ascontiguousarray(X[perm]), eps, algorithm)
        center_indices = perm[idx_p]
        labels = np.empty(n, dtype=np.intp)
        labels[perm] = labels_p
    else:
        center_indices, labels, used = _shadow_scan(X, eps, algorithm)
    return shadow_result(X, center_indices, labels, sigma, ell, kernel, used)


def shadow_centers_from_table(table: EarlierDistances, *, sigma: float, ell: float,
                              kernel: str = "gaussian") -> ShadowResult | None:
    """:func:`shadow_centers` (input order) read off a table of the distances to earlier rows.

    The table (:class:`~rskpca.core.shadow.EarlierDistances`) is computed once per
    data set and serves every sigma and ell: where shadows are needed at many radii (the
    app's ell grid, again at each sigma) and d is large, this is several times faster than
    scanning each time. The result is identical to ``shadow_centers(table.X, ...)``, with
    ``algorithm="table"``. Returns None where the radius holds too many pairs
    (``MAX_PAIRS``): the data are dense there and :func:`shadow_centers` is the fast way.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca.core.shadow import EarlierDistances
    >>> X = np.array([[0.0], [0.1], [1.0], [1.05], [5.0]])
    >>> s = shadow_centers_from_table(EarlierDistances(X), sigma=1.0, ell=4.0)
    >>> s.center_indices.tolist(), s.weights.tolist(), s.algorithm
    ([0, 2, 4], [2, 2, 1], 'table')
    """
    sigma, ell = check_positive(sigma, "sigma"), check_positive(ell, "ell")
    found = table.shadow(sigma / ell)
    if found is None:
        return None
    return shadow_result(table.X, *found, sigma, ell, kernel, "table", lazy=True)


def earliest_center_within(X, centers, eps: float, *, algorithm: str = "auto") -> np.ndarray:
    """Per row of X, the first row of ``centers`` strictly within ``eps`` (-1 if none).

    The decision is the shadow's own float64 predicate ``sum((c - x) ** 2) < eps ** 2``
    (:func:`exact_squared_distances`), whichever path finds the candidates. With ``centers``
    the first shadow centers of a data set in creation order, a row that gets ``j >= 0`` is
    labelled ``j`` by Algorithm 2 and a row that gets -1 is not covered by any of them: the
    step that makes the distributed shadow (:mod:`rskpca.distributed`) exact.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    centers : ndarray of shape (m, d)
    eps : float
    algorithm : {"auto", "compiled", "blas"}, default="auto"
        As for :func:`shadow_centers`, with the same result: "compiled" files the centers in
        the compiled scan's grid and looks each row up there; "blas" screens blocks of rows
        against the centers with GEMMs; "auto" picks "compiled" up to ``COMPILED_MAX_DIM``
        features (and "blas" for data near the float64 range).

    Returns
    -------
    ndarray of shape (n,), int

    Examples
    --------
    Ties at exactly eps are outside (strict ``<``): 2.0 lies exactly 1 from 1.0 and from 3.0.

    >>> X, C = np.array([[0.5], [1.9], [2.0], [9.0]]), np.array([[0.0], [1.0], [3.0]])
    >>> earliest_center_within(X, C, 1.0).tolist()
    [0, 1, -1, -1]
    >>> earliest_center_within(X, C, 1.0, algorithm="blas").tolist()
    [0, 1, -1, -1]
    """
    _check_algorithm(algorithm)
    X = np.ascontiguousarray(X, dtype=np.float64)
    C = np.ascontiguousarray(centers, dtype=np.float64)
    if X.ndim != 2 or C.ndim != 2 or X.shape[1] != C.shape[1]:
        raise ValueError(f"X and centers must be 2-D with the same number of columns; got shapes {X.shape} "
                         f"and {C.shape}.")
    if C.shape[0] == 0 or X.shape[0] == 0:
        return np.full(X.shape[0], -1, dtype=np.intp)
    found = _compiled_if_chosen(lambda: compiled_earliest_center(X, C, eps), X.shape[1], algorithm)
    return found if found is not None else blas_earliest_center(X, C, eps)
