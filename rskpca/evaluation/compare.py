"""Fit a registered method, time it, and compare it with exact KPCA: the one evaluation path.

The app's Embeddings, Speedups and Kernelization views, ``rskpca bench methods`` and
``rskpca experiment`` all go through :func:`fit_method`, :func:`fit_exact` and
:func:`compare`; rows use the vocabulary of :mod:`rskpca.evaluation.result_columns`. Nothing here
draws; caching and progress are the app's.

Protocol (stated wherever the numbers are shown): every method is trained on the same rows
``X_train`` and timed under the same :class:`~rskpca.evaluation.timing.Timing`; the
embedding of ``X_eval`` is compared with exact KPCA's embedding of the same rows after the
least-squares alignment of Section 6 of Kingravi et al. (2013); exact KPCA's time is its
fastest scikit-learn solver's. All budgeted methods get the m that the shadow produced at
ell, so comparisons are at equal m.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from enum import Enum
from typing import Callable

import numpy as np

from rskpca.core.validation import check_array_2d, check_positive
from rskpca.core.metrics import align, alignment_error, eigenvalue_deviation
from rskpca.core.shadow import shadow_centers
from rskpca.decomposition import KernelPCA
from rskpca.evaluation.methods import METHODS, SLOW_ABOVE_M, check_methods, make_estimator
from rskpca.evaluation.result_columns import COLUMNS
from rskpca.evaluation.timing import Timing, best_time

__all__ = [
    "MethodResult", "Outcome", "EXACT_SOLVERS", "fit_method", "fit_exact", "compare", "failed_row", "sweep_point",
    "method_sweep", "shadow_sweep", "ell_grid", "aligned_embeddings", "TIMING_UNITS", "timing_columns",
    "training_embedding", "fit_on_all_rows", "alignment_map", "exact_memory_bytes", "ExactPlan", "plan_exact",
]


class Outcome(str, Enum):
    """How a comparison row came about, in its ``outcome`` column; ``error`` gives the reason in words.

    A ``str`` (``Outcome.OK == "ok"``), so rows read back from CSV compare equal too.

    >>> Outcome("skipped") is Outcome.SKIPPED, f"{Outcome.FAILED}"
    (True, 'failed')
    """

    OK = "ok"  #: the method ran and was compared
    SKIPPED = "skipped"  #: not run: slow at this m (``skip_slow``)
    FAILED = "failed"  #: could not run (for example more components than centers)

    def __str__(self) -> str:
        return self.value


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


def ell_grid(low: float = 1.0, high: float = 10.0, num: int = 10) -> np.ndarray:
    """Evenly spaced ell values, rounded to the app's 0.1 step.

    >>> ell_grid(1.0, 3.0, 5).tolist()
    [1.0, 1.5, 2.0, 2.5, 3.0]
    """
    low = check_positive(low, "low")
    high = check_positive(high, "high")
    if high < low or num < 1:
        raise ValueError(f"Need low <= high and num >= 1; got low={low}, high={high}, num={num}.")
    return np.unique(np.round(np.linspace(low, high, int(num)), 2))


def _fit_and_time(name, est, X_train, X_eval, *, ell, timing, measure_gram_error, shadow=None, project=True):
    method = METHODS[name]
    if not project:  # the training rows' embedding read off the fit (KernelPCA.fit_transform): nothing projected
        Z, train_s = best_time(lambda: est.fit_transform(X_train), timing)
        return _result(name, method, est, X_train, Z, ell, train_s, float("nan"), measure_gram_error)
    if shadow is None:
        est, train_s = best_time(lambda: est.fit(X_train), timing)
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
               measure_gram_error: bool = False, shadow=None) -> MethodResult:
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
    if name != "rskpca":
        shadow = None
    return _fit_and_time(name, est, X_train, X_eval, ell=ell, timing=timing,
                         measure_gram_error=measure_gram_error, shadow=shadow)


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
        results[solver] = _fit_and_time("exact", est, X_train, X_eval, ell=float("nan"), timing=timing,
                                        measure_gram_error=False, project=project)
    per_solver = {solver: res.train_s for solver, res in results.items()}
    return replace(results[solvers[0]], train_s=min(per_solver.values()), solver_train_s=per_solver)


def _exact_columns(exact: MethodResult) -> dict:
    per = exact.solver_train_s or {}
    return {"exact_solver": min(per, key=per.get) if per else "",
            **{f"exact_{s}_train_s": per.get(s, float("nan")) for s in EXACT_SOLVERS},
            "exact_train_s": exact.train_s, "exact_test_s": exact.test_s}


def compare(result: MethodResult, exact: MethodResult, *, reference: MethodResult | None = None) -> dict:
    """One row: accuracy and speed of ``result`` relative to exact KPCA (see :mod:`~rskpca.evaluation.result_columns`).

    Speedups divide ``exact``'s times (exact KPCA on the same rows, from :func:`fit_exact`).
    Accuracy is measured against ``reference`` (default ``exact``): the experiments use exact
    KPCA fitted on the whole data set there, as the paper does.

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> ex = fit_exact(X, n_components=2, sigma=1.0)
    >>> round(compare(ex, ex)["alignment_error"], 6)
    0.0
    """
    reference = exact if reference is None else reference
    if result.embedding.shape[0] != reference.embedding.shape[0]:
        raise ValueError("result and exact embed different numbers of rows; evaluate both on the same X_eval.")
    gram = result.gram_error or {}
    nan = float("nan")
    return {
        "method": result.label, "name": result.name, "group": result.group, "ell": result.ell,
        "n_train": result.n_train, "n_test": int(result.embedding.shape[0]),
        "m": result.m, "retained": result.m / result.n_train, "stored_points": result.stored_points,
        "alignment_error": alignment_error(reference.embedding, result.embedding),
        "eigenvalue_deviation": eigenvalue_deviation(reference.normalized_eigenvalues,
                                                     result.normalized_eigenvalues),
        "gram_spectral_error": float(gram.get("spectral_norm", nan)),
        "gram_relative_error": float(gram.get("relative", nan)),
        "train_exact_kpca_s": result.train_parts.get("exact_kpca", nan),
        "train_construction_s": result.train_parts.get("construction", nan),
        "train_s": result.train_s, "test_s": result.test_s,
        **_exact_columns(exact),
        "train_speedup": exact.train_s / max(result.train_s, 1e-9),
        "test_speedup": exact.test_s / max(result.test_s, 1e-9),
        "outcome": Outcome.OK,
        "error": "",
    }


#: The units (:data:`~rskpca.evaluation.result_columns.COLUMNS`) of the columns that report times:
#: seconds, and ratios of times (the speedups).
TIMING_UNITS = ("s", "ratio")


def timing_columns(columns) -> list[str]:
    """The columns among ``columns`` that report times, by their unit in the column vocabulary.

    Seconds and ratios of times (:data:`TIMING_UNITS`), and ``exact_solver`` (the solver exact
    KPCA's times are from). A view that fits without timing (the app's Embeddings page) leaves
    them out; the vocabulary refuses a column it does not define.

    Parameters
    ----------
    columns : iterable of str
        Column names of a :func:`compare` table.

    Returns
    -------
    list of str
        The timing columns, in the order given.

    Examples
    --------
    >>> timing_columns(["method", "alignment_error", "train_s", "test_speedup", "exact_solver", "m"])
    ['train_s', 'test_speedup', 'exact_solver']
    """
    columns = list(columns)
    unknown = [c for c in columns if c not in COLUMNS]
    if unknown:
        raise ValueError(f"Columns {unknown} are not in rskpca.evaluation.result_columns.COLUMNS; define them there.")
    return [c for c in columns if COLUMNS[c].unit in TIMING_UNITS or c == "exact_solver"]


#: The measured columns of a :func:`compare` row: NaN in the row of a method that could not run.
_MEASURED = ("n_test", "stored_points", "alignment_error", "eigenvalue_deviation", "gram_spectral_error",
             "gram_relative_error", "train_exact_kpca_s", "train_construction_s", "train_s", "test_s",
             "exact_solver", *(f"exact_{s}_train_s" for s in EXACT_SOLVERS), "exact_train_s", "exact_test_s",
             "train_speedup", "test_speedup")


def failed_row(name: str, *, ell: float, m: int, n_train: int, message: str,
               outcome: Outcome = Outcome.FAILED) -> dict:
    """The row of a method that did not run: the same columns as :func:`compare`, NaN values, ``outcome``
    (:attr:`Outcome.FAILED`, or :attr:`Outcome.SKIPPED`) and the reason in ``error``."""
    method = METHODS[name]
    return {"method": method.label, "name": name, "group": method.group, "ell": float(ell), "n_train": n_train,
            "m": m, "retained": m / n_train, **dict.fromkeys(_MEASURED, float("nan")), "outcome": Outcome(outcome),
            "error": message}


def sweep_point(X_train, X_eval, exact: MethodResult, *, ell: float, methods, n_components: int, sigma: float,
                kernel: str = "gaussian", random_state=0, timing: Timing = Timing(),
                skip_slow: bool = False, reference: MethodResult | None = None,
                measure_gram_error: bool = False) -> list[dict]:
    """Rows of :func:`compare` for every method in ``methods`` at one ell.

    The shadow is run once to get m; a method that cannot run at this ell (for example
    ``n_components > m`` when the shadow keeps very few points) gives a row with the reason
    in ``error`` (``outcome`` :attr:`Outcome.FAILED`) instead of stopping the sweep. With ``skip_slow``,
    methods that are slow at this m (:meth:`~rskpca.evaluation.methods.Method.slow_at`) get a row
    saying they were skipped (:attr:`Outcome.SKIPPED`).
    ``reference`` and ``measure_gram_error`` are passed on to :func:`compare` and :func:`fit_method`.

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> ex = fit_exact(X, n_components=2, sigma=1.0)
    >>> rows = sweep_point(X, X, ex, ell=3.0, methods=["rskpca", "nystrom"], n_components=2, sigma=1.0)
    >>> [r["method"] for r in rows]
    ['ShDE + RSKPCA', 'Nystrom']
    """
    X_train = check_array_2d(X_train, name="X_train", min_samples=2)
    n = X_train.shape[0]
    m = shadow_centers(X_train, sigma=sigma, ell=ell, kernel=kernel).m
    rows = []
    for name in check_methods(methods):
        method = METHODS[name]
        if method.group == "exact":
            continue
        if skip_slow and method.slow_at(m):
            rows.append(failed_row(name, ell=ell, m=m, n_train=n, outcome=Outcome.SKIPPED,
                                   message=f"skipped: m = {m} is above {SLOW_ABOVE_M}, where this method takes long"))
            continue
        try:
            res = fit_method(name, X_train, X_eval, n_components=n_components, sigma=sigma, kernel=kernel,
                             ell=ell, m=m, random_state=random_state, timing=timing,
                             measure_gram_error=measure_gram_error)
        except (ValueError, np.linalg.LinAlgError, MemoryError) as exc:
            rows.append(failed_row(name, ell=ell, m=m, n_train=n, message=str(exc)))
            continue
        rows.append(compare(res, exact, reference=reference))
    return rows


def method_sweep(X_train, X_eval=None, *, ells, methods, n_components: int, sigma: float, kernel: str = "gaussian",
                 random_state=0, timing: Timing = Timing(),
                 progress: Callable[[float], None] | None = None) -> list[dict]:
    """:func:`sweep_point` over every ell in ``ells`` (exact KPCA fitted once).

    ``progress(fraction)`` is called after each ell.

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> rows = method_sweep(X, ells=[2.0, 4.0], methods=["rskpca"], n_components=2, sigma=1.0)
    >>> [r["ell"] for r in rows]
    [2.0, 4.0]
    """
    X_train = check_array_2d(X_train, name="X_train", min_samples=2)
    X_eval = X_train if X_eval is None else X_eval
    exact = fit_exact(X_train, X_eval, n_components=n_components, sigma=sigma, kernel=kernel,
                      random_state=random_state, timing=timing)
    rows: list[dict] = []
    ells = list(ells)
    for i, ell in enumerate(ells):
        rows += sweep_point(X_train, X_eval, exact, ell=float(ell), methods=methods, n_components=n_components,
                            sigma=sigma, kernel=kernel, random_state=random_state, timing=timing)
        if progress is not None:
            progress((i + 1) / len(ells))
    return rows


def shadow_sweep(X, *, ells, sigma: float, kernel: str = "gaussian") -> list[dict]:
    """m, m/n and the selection time of the shadow at every ell.

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(100, 2))
    >>> [r["m"] <= 100 for r in shadow_sweep(X, ells=[1.0, 5.0], sigma=1.0)]
    [True, True]
    """
    X = check_array_2d(X, name="X")
    rows = []
    for ell in ells:
        t0 = time.perf_counter()
        s = shadow_centers(X, sigma=sigma, ell=float(ell), kernel=kernel)
        rows.append({"ell": float(ell), "n_train": s.n, "m": s.m, "retained": s.m / s.n,
                     "shadow_s": time.perf_counter() - t0})
    return rows


def aligned_embeddings(results, exact: MethodResult) -> dict[str, np.ndarray]:
    """Each method's embedding in the exact embedding's frame (so plots do not flicker).

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> ex = fit_exact(X, n_components=2, sigma=1.0)
    >>> list(aligned_embeddings([ex], ex))
    ['Exact KPCA']
    """
    return {r.label: (r.embedding if r is exact else align(exact.embedding, r.embedding)) for r in results}


# --------------------------------------------------------------------------- every row, exact KPCA on what fits

def training_embedding(name: str, estimator, X) -> np.ndarray:
    """The fitted ``estimator``'s embedding of its own training rows ``X``, at O(n m) for every method here.

    The methods that project new points through all n training rows (Nystrom, density-weighted
    Nystrom) would take O(n^2) to project their training rows again; their training rows'
    embedding is the Nystrom extension the fit already computed, ``U~ diag(lambda^1/2)``
    (``train_eigenvectors_``: Williams & Seeger), which ``transform`` equals where U~ are the exact
    eigenvectors. The others project through their m points (``transform``).

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(80, 2))
    >>> est = make_estimator("nystrom", n_components=2, sigma=1.0, m=80).fit(X)
    >>> bool(np.allclose(np.abs(training_embedding("nystrom", est, X)), np.abs(est.transform(X)), atol=1e-6))
    True
    """
    if METHODS[name].projects_through_training_set and hasattr(estimator, "train_eigenvectors_"):
        lam = np.clip(np.asarray(estimator.eigenvalues_, dtype=np.float64), 0.0, None)
        return np.asarray(estimator.train_eigenvectors_, dtype=np.float64) * np.sqrt(lam)[None, :]
    return np.asarray(estimator.transform(X), dtype=np.float64)


def fit_on_all_rows(name: str, X, *, n_components: int, sigma: float, kernel: str = "gaussian", ell: float = 4.0,
                    m: int | None = None, random_state=0, shadow=None) -> MethodResult:
    """The method ``name`` fitted on every row of ``X`` and every row embedded (untimed: ``train_s`` and
    ``test_s`` are NaN), for the registry's O(n m) methods.

    As :func:`fit_method` with ``X_eval = X_train``, except that the training rows are embedded by
    :func:`training_embedding` (no O(n^2) projection through the training set), and that with
    ``shadow`` (``X``'s own, already computed) RSKPCA solves on its centers instead of selecting
    them again. Exact KPCA is refused (an n x n matrix: :func:`plan_exact`).

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(60, 2))
    >>> res = fit_on_all_rows("nystrom", X, n_components=2, sigma=1.0, m=20)
    >>> res.embedding.shape, res.m, res.n_train
    ((60, 2), 20, 60)
    """
    check_methods([name])
    if METHODS[name].group == "exact" or name == "exact_iterative":
        raise ValueError(f"{name!r} is exact KPCA: fit it on the rows plan_exact gives, with fit_exact.")
    X = check_array_2d(X, name="X", min_samples=2)
    est = make_estimator(name, n_components=n_components, sigma=sigma, kernel=kernel, ell=ell, m=m,
                         random_state=random_state)
    if name == "rskpca" and shadow is not None:
        if shadow.n != X.shape[0]:
            raise ValueError(f"shadow is of {shadow.n} rows, X has {X.shape[0]}: pass X's own shadow.")
        est = est.fit_reduced_set(shadow.centers, shadow.weights, center_indices=shadow.center_indices)
    else:
        est = est.fit(X)
    Z = training_embedding(name, est, X)
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

    The same sample for a given (n, max_rows, seed): ``np.random.default_rng(seed).choice(n, max_rows,
    replace=False)``, sorted.

    >>> plan = plan_exact(10_000, 2000)
    >>> plan.all_rows, plan.rows.size, plan.memory_bytes
    (False, 2000, 800000000)
    >>> plan_exact(500, 2000).all_rows
    True
    """
    n, max_rows = int(n), int(max_rows)
    if max_rows < 2:
        raise ValueError(f"max_rows must be at least 2; got {max_rows}.")
    if n <= max_rows:
        rows = np.arange(n)
    else:
        rows = np.sort(np.random.default_rng(seed).choice(n, size=max_rows, replace=False))
    return ExactPlan(rows=rows, n=n, all_rows=n <= max_rows, max_rows=max_rows, memory_bytes=exact_memory_bytes(n))
