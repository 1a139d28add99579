"""Every row of the data embedded, exact KPCA on the rows that fit: the app's views on all n rows.

:func:`fit_on_all_rows` fits one of the registry's O(n m) methods on every row and embeds every row
(:func:`training_embedding`: no O(n^2) projection through the training set). Exact KPCA needs an
n x n matrix (:func:`exact_memory_bytes`), so it runs on the rows :func:`plan_exact` picks, decided
before it runs; :func:`alignment_map`, fitted on the rows both embed, carries each approximation
into exact KPCA's frame on every row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rskpca.core.row_draws import rows_within
from rskpca.core.validation import check_array_2d
from rskpca.evaluation.fitting import MethodResult, _result
from rskpca.evaluation.methods import METHODS, check_methods, make_estimator

__all__ = ["training_embedding", "transform_in_blocks", "fit_on_centers", "fit_on_all_rows", "alignment_map", "exact_memory_bytes", "ExactPlan",
           "plan_exact"]


def training_embedding(name: str, estimator, X, *, dtype=np.float64, progress=None) -> np.ndarray:
    """The fitted ``estimator``'s embedding of its own training rows ``X``, at O(n m) for every method here.

    The methods that project new points through all n training rows (Nystrom, density-weighted
    Nystrom) would take O(n^2) to project their training rows again; their training rows'
    embedding is the Nystrom extension the fit already computed, ``U~ diag(lambda^1/2)``
    (``train_eigenvectors_``: Williams & Seeger), which ``transform`` equals where U~ are the exact
    eigenvectors. The others project through their m points (``transform``), in blocks of rows
    converted to ``dtype`` as they are read: ``np.float32`` projects a Gaussian model through
    float32 kernel blocks, about twice as fast, for an embedding that is drawn, not solved on.
    ``progress``: as :func:`transform_in_blocks`'s (not called for the extension, already computed).

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(80, 2))
    >>> est = make_estimator("nystrom", n_components=2, sigma=1.0, m=80).fit(X)
    >>> bool(np.allclose(np.abs(training_embedding("nystrom", est, X)), np.abs(est.transform(X)), atol=1e-6))
    True
    """
    if METHODS[name].projects_through_training_set and hasattr(estimator, "train_eigenvectors_"):
        lam = np.clip(np.asarray(estimator.eigenvalues_, dtype=np.float64), 0.0, None)
        return (np.asarray(estimator.train_eigenvectors_, dtype=np.float64) * np.sqrt(lam)[None, :]).astype(dtype)
    return transform_in_blocks(estimator, X, dtype=dtype, progress=progress)


#: Rows converted and projected at a time by :func:`transform_in_blocks` (each block is itself split
#: into kernel blocks, shared by the threads).
_EMBED_BLOCK_ROWS = 262_144


def transform_in_blocks(estimator, X, *, dtype=np.float64, progress=None) -> np.ndarray:
    """``estimator.transform(X)`` with X converted to ``dtype`` a block of rows at a time (no whole
    converted copy of X): with ``np.float32`` the estimators here project through float32 kernel
    blocks (Gaussian), about twice as fast, for coordinates that are drawn rather than solved on.

    Parameters
    ----------
    estimator : fitted transformer
    X : array-like of shape (n_samples, n_features)
    dtype : numpy dtype, default=np.float64
        The precision of the rows as projected, and of the result.
    progress : callable, default=None
        Called after each block of :data:`_EMBED_BLOCK_ROWS` rows as ``progress(fraction, message)``
        (:mod:`rskpca.core.progress`: the share of the rows embedded, and how many), the last call with
        ``fraction == 1``: a caller can show how far a long embedding has come, or stop it by raising
        (nothing is returned then).

    Returns
    -------
    Z : ndarray of shape (n_samples, n_components), of ``dtype``

    >>> import numpy as np
    >>> from rskpca import ReducedSetKPCA
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> est = ReducedSetKPCA(n_components=2, sigma=1.0, ell=2.0).fit(X)
    >>> seen = []
    >>> Z = transform_in_blocks(est, X, dtype=np.float32, progress=lambda fraction, message: seen.append(fraction))
    >>> Z.dtype, bool(np.allclose(Z, est.transform(X), atol=1e-5)), seen
    (dtype('float32'), True, [1.0])
    """
    X = np.asarray(X)
    n = X.shape[0]
    Z = None
    for start in range(0, n, _EMBED_BLOCK_ROWS):
        Zb = estimator.transform(X[start:start + _EMBED_BLOCK_ROWS].astype(dtype))
        if Z is None:
            Z = np.empty((n, Zb.shape[1]), dtype=dtype)
        Z[start:start + Zb.shape[0]] = Zb
        if progress is not None:
            done = start + Zb.shape[0]
            progress(done / n, f"{done:,} of {n:,} rows embedded")
    return Z


def fit_on_centers(name: str, shadow, *, n_components: int, sigma: float, kernel: str = "gaussian", ell: float = 4.0,
                   m: int | None = None, random_state=0):
    """The method ``name`` (one the registry fits on the shadow) fitted on ``shadow``'s weighted centers.

    The O(m^2) part of :func:`fit_on_all_rows`, for a caller that embeds the rows more than once
    from one fit (first quantized, then each row's own projection): pass the result as ``fitted``.

    >>> import numpy as np
    >>> from rskpca.core.shadow import shadow_centers
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> s = shadow_centers(X, sigma=1.0, ell=2.0)
    >>> fit_on_centers("rskpca", s, n_components=2, sigma=1.0, ell=2.0).m_ == s.m
    True
    """
    check_methods([name])
    if not METHODS[name].fits_on_shadow:
        raise ValueError(f"{name!r} is not fitted on the shadow's centers.")
    est = make_estimator(name, n_components=n_components, sigma=sigma, kernel=kernel, ell=ell, m=m,
                         random_state=random_state)
    return est.fit_reduced_set(shadow.centers, shadow.weights, center_indices=shadow.center_indices)


def fit_on_all_rows(name: str, X, *, n_components: int, sigma: float, kernel: str = "gaussian", ell: float = 4.0,
                    m: int | None = None, random_state=0, shadow=None, embed_dtype=np.float64,
                    progress=None, quantized: bool = False, fitted=None) -> MethodResult:
    """The method ``name`` fitted on every row of ``X`` and every row embedded (untimed: ``train_s`` and
    ``test_s`` are NaN), for the registry's O(n m) methods.

    As :func:`~rskpca.evaluation.fitting.fit_method` with ``X_eval = X_train``, except that the training
    rows are embedded by :func:`training_embedding` (no O(n^2) projection through the training set), and that with
    ``shadow`` (``X``'s own, already computed) RSKPCA solves on its centers instead of selecting
    them again. Exact KPCA is refused (an n x n matrix: :func:`plan_exact`). ``embed_dtype``: the
    precision of every row's embedding (see :func:`training_embedding`); the fit is float64 either way.
    ``progress``: called as the rows are embedded (:func:`transform_in_blocks`). ``quantized`` (RSKPCA with
    ``shadow``): each row at its center's coordinates instead of its own projection -- the exact
    embedding of the data quantized to the centers, at O(m^2) instead of O(n m), what a page draws
    while every row's own projection is computed. ``fitted``: the method already fitted on ``shadow``
    (:func:`fit_on_centers`), so that the centers' problem is not solved again.

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(60, 2))
    >>> res = fit_on_all_rows("nystrom", X, n_components=2, sigma=1.0, m=20)
    >>> res.embedding.shape, res.m, res.n_train
    ((60, 2), 20, 60)
    """
    check_methods([name])
    if METHODS[name].exact_kpca:
        raise ValueError(f"{name!r} is exact KPCA: fit it on the rows plan_exact gives, with fit_exact.")
    X = check_array_2d(X, name="X", min_samples=2)
    on_shadow = METHODS[name].fits_on_shadow and shadow is not None
    if (quantized or fitted is not None) and not on_shadow:
        raise ValueError(f"quantized and fitted need a method fitted on the shadow and X's shadow; {name!r} is not "
                         "one, or no shadow was given.")
    if on_shadow:
        if shadow.n != X.shape[0]:
            raise ValueError(f"shadow is of {shadow.n} rows, X has {X.shape[0]}: pass X's own shadow.")
        est = fitted if fitted is not None else fit_on_centers(
            name, shadow, n_components=n_components, sigma=sigma, kernel=kernel, ell=ell, m=m,
            random_state=random_state)
    else:
        est = make_estimator(name, n_components=n_components, sigma=sigma, kernel=kernel, ell=ell, m=m,
                             random_state=random_state).fit(X)
    if quantized:
        Z = est.transform(shadow.centers).astype(embed_dtype)[shadow.labels]
    else:
        Z = training_embedding(name, est, X, dtype=embed_dtype, progress=progress)
    return _result(name, METHODS[name], est, X, Z, ell, float("nan"), float("nan"), False)


def alignment_map(O_exact, O_approx) -> np.ndarray:
    """``A = argmin_A ||O_exact - O_approx A||_F`` (r x r): :func:`~rskpca.core.metrics.align` as a map,
    to be fitted on the rows both embed and applied to every row of the approximation.

    >>> import numpy as np
    >>> O = np.random.default_rng(0).normal(size=(20, 2))
    >>> bool(np.allclose(-O @ alignment_map(O, -O), O))
    True
    """
    A, *_ = np.linalg.lstsq(np.asarray(O_approx, dtype=np.float64), np.asarray(O_exact, dtype=np.float64),
                            rcond=None)
    return A


def exact_memory_bytes(n: int) -> int:
    """Bytes of exact KPCA's n x n float64 kernel matrix: 8 n^2 (one copy; the solver needs more).

    >>> exact_memory_bytes(1_000_000) / 1e12
    8.0
    """
    return 8 * int(n) ** 2


@dataclass(frozen=True)
class ExactPlan:
    """Which rows exact KPCA runs on, decided before running it (:func:`plan_exact`).

    Attributes
    ----------
    rows : ndarray of int
        Positions of the rows (all n, or a seeded sample, sorted).
    n : int
        Rows of the data.
    all_rows : bool
    max_rows : int
        The budget the plan kept to.
    memory_bytes : int
        What exact KPCA on all n would need for its kernel matrix alone (:func:`exact_memory_bytes`).
    """

    rows: np.ndarray
    n: int
    all_rows: bool
    max_rows: int
    memory_bytes: int


def plan_exact(n: int, max_rows: int, *, seed: int = 0) -> ExactPlan:
    """Exact KPCA on all n rows when n <= ``max_rows``, else on a seeded sample of ``max_rows`` rows.

    The same sample for a given (n, max_rows, seed):
    ``rows_within(n, max_rows, np.random.default_rng(seed))`` (:mod:`rskpca.core.row_draws`).

    >>> plan = plan_exact(10_000, 2000)
    >>> plan.all_rows, plan.rows.size, plan.memory_bytes
    (False, 2000, 800000000)
    >>> plan_exact(500, 2000).all_rows
    True
    """
    n, max_rows = int(n), int(max_rows)
    if max_rows < 2:
        raise ValueError(f"max_rows must be at least 2; got {max_rows}.")
    rows = rows_within(n, max_rows, np.random.default_rng(seed))
    return ExactPlan(rows=rows, n=n, all_rows=n <= max_rows, max_rows=max_rows, memory_bytes=exact_memory_bytes(n))
