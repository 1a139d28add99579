"""Fit a registered method, or exact KPCA with each scikit-learn solver, and time it: a :class:`MethodResult`.

Every fit of :mod:`rskpca.evaluation.compare`'s protocol goes through :func:`fit_method` (the
registered methods) and :func:`fit_exact` (the speedups' baseline and the reference embedding):
trained on ``X_train``, timed under one :class:`~rskpca.evaluation.timing.Timing`, ``X_eval``
embedded. :mod:`rskpca.evaluation.all_rows` fits on every row of large data instead, untimed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from rskpca.core.validation import check_array_2d
from rskpca.decomposition import KernelPCA
from rskpca.evaluation.methods import METHODS, REFERENCE, check_methods, make_estimator
from rskpca.evaluation.timing import Timing, best_time

__all__ = ["MethodResult", "EXACT_SOLVERS", "fit_method", "fit_exact"]


#: scikit-learn solvers timed for exact KPCA; the fastest is the speedups' baseline and the
#: first gives the reference embedding (ARPACK is exact to tolerance; randomized is not).
EXACT_SOLVERS = ("arpack", "randomized")


@dataclass(frozen=True)
class MethodResult:
    """One fitted method, reduced to what the comparisons show.

    Attributes
    ----------
    name, label, group : str
        Registry key, display label and group.
    ell : float
    m : int
        Reduced-set size the method used (n for exact KPCA).
    n_train : int
    embedding : ndarray of shape (n_eval, r)
        ``transform(X_eval)``.
    normalized_eigenvalues : ndarray of shape (r,)
        Eigenvalues of K/n (comparable across methods).
    train_s, test_s : float
        Best wall-clock seconds of ``fit(X_train)`` and ``transform(X_eval)``.
    stored_points : int
        Points kept for evaluating new data.
    train_parts : dict
        Seconds per part of the fit, from the estimator's ``fit_time_breakdown_`` (the
        reduced-set construction: exact KPCA + construction); empty for the others.
    gram_error : dict or None
        ``{"spectral_norm", "relative", ...}`` for methods that perturb the Gram matrix when
        :func:`fit_method` was asked to measure it.
    solver_train_s : dict
        Exact KPCA only: training seconds per scikit-learn solver (see :func:`fit_exact`).
    """

    name: str
    label: str
    group: str
    ell: float
    m: int
    n_train: int
    embedding: np.ndarray
    normalized_eigenvalues: np.ndarray
    train_s: float
    test_s: float
    stored_points: int
    train_parts: dict
    gram_error: dict | None = None
    solver_train_s: dict | None = None


def _fit_and_time(name, est, X_train, X_eval, *, ell, timing, measure_gram_error, shadow=None, shadow_s=None,
                  project=True):
    method = METHODS[name]
    if not project:  # the training rows' embedding read off the fit (KernelPCA.fit_transform): nothing projected
        Z, train_s = best_time(lambda: est.fit_transform(X_train), timing)
        return _result(name, method, est, X_train, Z, ell, train_s, float("nan"), measure_gram_error)
    if shadow is None:
        est, train_s = best_time(lambda: est.fit(X_train), timing)
    elif shadow_s is not None:  # the selection was timed when it ran: the fit is it and the solve
        est, solve_s = best_time(lambda: est.fit_reduced_set(shadow.centers, shadow.weights,
                                                             center_indices=shadow.center_indices), timing)
        train_s = float(shadow_s) + solve_s
    else:  # the selection was made elsewhere: the solve alone is not the fit's time
        est = est.fit_reduced_set(shadow.centers, shadow.weights, center_indices=shadow.center_indices)
        train_s = float("nan")
    Z, test_s = best_time(lambda: est.transform(X_eval), timing)
    return _result(name, method, est, X_train, Z, ell, train_s, test_s, measure_gram_error)


def _result(name, method, est, X_train, Z, ell, train_s, test_s, measure_gram_error) -> MethodResult:
    n = X_train.shape[0]
    parts = est.fit_time_breakdown_ if method.reports_train_parts else {}
    gram = est.gram_error(X_train) if measure_gram_error and method.perturbs_gram else None
    return MethodResult(
        name=name, label=method.label, group=method.group, ell=float(ell), m=method.reduced_size(est, n),
        n_train=int(n), embedding=np.asarray(Z, dtype=np.float64),
        normalized_eigenvalues=np.asarray(est.normalized_eigenvalues_, dtype=np.float64),
        train_s=train_s, test_s=test_s, stored_points=method.stored_points(est, n),
        train_parts={k: float(v) for k, v in parts.items()},
        gram_error=None if gram is None else {k: float(v) for k, v in gram.items()})


def fit_method(name: str, X_train, X_eval=None, *, n_components: int, sigma: float, kernel: str = "gaussian",
               ell: float = 4.0, m: int | None = None, random_state=0, timing: Timing = Timing(),
               measure_gram_error: bool = False, shadow=None, shadow_s: float | None = None) -> MethodResult:
    """Fit the registered method ``name`` on ``X_train`` and transform ``X_eval``, timing both.

    Parameters
    ----------
    name : str
        A key of :data:`rskpca.evaluation.methods.METHODS`.
    X_train : array-like of shape (n, d)
    X_eval : array-like of shape (n_eval, d) or None
        Rows to embed; ``X_train`` if None.
    n_components : int
    sigma : float
        Bandwidth (``k = exp(-||x-y||^2 / sigma^2)`` for the Gaussian).
    kernel : str, default="gaussian"
    ell : float, default=4.0
    m : int or None
        Budget for the methods that need one (the shadow's m at ell, for a fair comparison).
    random_state : int, default=0
    timing : Timing, default=Timing()
        Warm-up and repeats of each timed call (the same for every method compared).
    measure_gram_error : bool, default=False
        For methods that perturb the Gram matrix, also measure ``||K^ - K||_2`` on
        ``X_train`` (two Lanczos runs on kernel blocks: about as costly as the fit).
    shadow : ShadowResult or None, default=None
        ``X_train``'s shadow at ``sigma`` and ``ell``, already computed (by a page that shows
        it): ``"rskpca"`` then solves on its centers (``fit_reduced_set``, the same solve as
        ``fit``, bit for bit) instead of selecting them again, and ``train_s`` is NaN (not a
        fit's time); other methods ignore it. For fits whose time is not shown.
    shadow_s : float or None, default=None
        With ``shadow``: the seconds its selection took when it ran (a scan of ``X_train``, not
        read off a table). ``train_s`` is then that plus the timed solve on its centers, the two
        parts of ``fit`` (:meth:`ReducedSetKPCA.fit` selects, then solves), without selecting again.

    Returns
    -------
    MethodResult

    Raises
    ------
    ValueError
        For unknown methods or settings the estimator rejects (e.g. ``n_components > m``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(60, 2))
    >>> res = fit_method("rskpca", X, n_components=2, sigma=1.0, ell=3.0)
    >>> res.embedding.shape, res.m < 60
    ((60, 2), True)
    """
    check_methods([name])
    X_train = check_array_2d(X_train, name="X_train", min_samples=2)
    X_eval = X_train if X_eval is None else check_array_2d(X_eval, name="X_eval")
    est = make_estimator(name, n_components=n_components, sigma=sigma, kernel=kernel, ell=ell, m=m,
                         random_state=random_state)
    if shadow is not None and shadow.n != X_train.shape[0]:
        raise ValueError(f"shadow is of {shadow.n} rows, X_train has {X_train.shape[0]}: pass X_train's own shadow.")
    if not METHODS[name].fits_on_shadow:
        shadow = None
    return _fit_and_time(name, est, X_train, X_eval, ell=ell, timing=timing,
                         measure_gram_error=measure_gram_error, shadow=shadow, shadow_s=shadow_s)


def fit_exact(X_train, X_eval=None, *, n_components: int, sigma: float, kernel: str = "gaussian",
              random_state=0, timing: Timing = Timing(), solvers=EXACT_SOLVERS, project: bool = True) -> MethodResult:
    """Exact KPCA timed with each scikit-learn solver in ``solvers``: the speedups' baseline.

    ``train_s`` is the fastest solver's time (``solver_train_s`` holds each); the embedding
    and eigenvalues are the first solver's. ``project=False`` (``X_eval`` None) embeds the
    training rows as :meth:`rskpca.KernelPCA.fit_transform` does, without projecting them
    again (``test_s`` is nan): for a caller that shows the embedding, not the test time.

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> ex = fit_exact(X, n_components=2, sigma=1.0)
    >>> sorted(ex.solver_train_s), ex.train_s == min(ex.solver_train_s.values())
    (['arpack', 'randomized'], True)
    """
    X_train = check_array_2d(X_train, name="X_train", min_samples=2)
    if not project and X_eval is not None:
        raise ValueError("project=False embeds the training rows only: leave X_eval as None.")
    X_eval = X_train if X_eval is None else check_array_2d(X_eval, name="X_eval")
    results = {}
    for solver in solvers:
        est = KernelPCA(n_components=n_components, sigma=sigma, kernel=kernel, eigen_solver=solver,
                        random_state=random_state)
        results[solver] = _fit_and_time(REFERENCE.name, est, X_train, X_eval, ell=float("nan"), timing=timing,
                                        measure_gram_error=False, project=project)
    per_solver = {solver: res.train_s for solver, res in results.items()}
    return replace(results[solvers[0]], train_s=min(per_solver.values()), solver_train_s=per_solver)
