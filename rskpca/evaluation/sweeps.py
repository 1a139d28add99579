"""Comparing kernel PCA methods at one ell and over a grid of ell, as tidy rows.

The app's Embeddings, Speedups and Kernelization views, and any script that
wants Figures 2-8 style curves, go through these functions. They only compute;
drawing is in :mod:`rskpca.plotting`, caching and progress in the app.

Protocol (stated wherever the numbers are shown): every method is trained on
the same rows ``X_train``; the embedding of ``X_eval`` is compared to the exact
kernel PCA embedding of the same rows after the least-squares alignment of
Section 6; the "test time" is the time to transform ``X_eval``. For a fair
comparison all budgeted methods get the m that the shadow produced at ell.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from rskpca.core._validation import check_array_2d, check_positive
from rskpca.evaluation.methods import METHODS, make_estimator
from rskpca.core.metrics import align, alignment_error, eigenvalue_deviation
from rskpca.core.shadow import shadow_centers

__all__ = [
    "MethodResult",
    "BREAKDOWN_PARTS",
    "perturbs_gram",
    "fit_method",
    "compare",
    "sweep_point",
    "method_sweep",
    "shadow_sweep",
    "ell_grid",
    "aligned_embeddings",
    "SLOW_AT_LARGE_M",
    "CLASSIFIERS",
    "cross_validate_classifier",
]

#: Classifiers offered on kernel PCA features (seed 003: kernelization of a linear method).
CLASSIFIERS = {
    "knn": "k-nearest neighbours (k = 3, as in Section 6)",
    "lda": "Linear discriminant analysis",
    "logistic": "Logistic regression",
}


@dataclass(frozen=True)
class MethodResult:
    """One fitted method, reduced to what the views show.

    Attributes
    ----------
    name, label, group : str
        Registry name, display label and group (see :data:`rskpca.evaluation.methods.METHODS`).
    ell : float
    m : int
        Reduced-set size the method used (n for exact KPCA).
    n_train : int
    embedding : ndarray of shape (n_eval, r)
        ``transform(X_eval)``.
    normalized_eigenvalues : ndarray of shape (r,)
        Eigenvalues of K/n (comparable across methods).
    fit_seconds, transform_seconds : float
        Wall-clock time of ``fit(X_train)`` and ``transform(X_eval)``.
    stored_points : int
        Points kept for evaluating new data (m for reduced-set methods, n for
        Nystrom-type and exact KPCA, which project through the training set).
    fit_time_breakdown : dict or None
        The estimator's ``fit_time_breakdown_`` (seconds per part of ``fit``,
        e.g. ``{"exact_kpca": ..., "construction": ...}`` for the reduced-set
        construction, whose training includes exact KPCA), or None.
    gram_error : dict or None
        For estimators that perturb the Gram matrix (``gram_error`` method):
        its spectral-norm error ``{"spectral_norm", "relative", "theorem1_scale"}``
        when :func:`fit_method` was asked to measure it, else None.
    """

    name: str
    label: str
    group: str
    ell: float
    m: int
    n_train: int
    embedding: np.ndarray
    normalized_eigenvalues: np.ndarray
    fit_seconds: float
    transform_seconds: float
    stored_points: int
    fit_time_breakdown: dict | None = None
    gram_error: dict | None = None


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


def perturbs_gram(name: str) -> bool:
    """Whether the registered method ``name`` perturbs the Gram matrix (and so can report ``gram_error``).

    >>> perturbs_gram("gram_sparsified"), perturbs_gram("rskpca")
    (True, False)
    """
    return hasattr(make_estimator(name, n_components=1, sigma=1.0, m=1), "gram_error")


def _reduced_size(est, n_train: int) -> int:
    """Points the eigenproblem was solved on: centers, landmarks, or all n (exact)."""
    for attr in ("centers_", "landmarks_"):
        if hasattr(est, attr):
            return int(getattr(est, attr).shape[0])
    if hasattr(est, "random_weights_"):  # random Fourier features: m features, no points
        return int(est.random_weights_.shape[1])
    return n_train


def _stored_points(est, n_train: int) -> int:
    """Points a new x is projected through (Table 2's storage): centers, or the training set."""
    if hasattr(est, "X_fit_"):
        return int(est.X_fit_.shape[0])
    return _reduced_size(est, n_train)


def fit_method(name: str, X_train, X_eval=None, *, n_components: int, sigma: float, kernel: str = "gaussian",
               ell: float = 4.0, m: int | None = None, random_state=0,
               measure_gram_error: bool = False) -> MethodResult:
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
    measure_gram_error : bool, default=False
        For methods that perturb the Gram matrix (they have ``gram_error``),
        also measure ``||K^ - K||_2`` on ``X_train`` (two Lanczos runs on kernel
        blocks: about as costly as the fit itself, so only on request).

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
    X_train = check_array_2d(X_train, name="X_train", min_samples=2)
    X_eval = X_train if X_eval is None else check_array_2d(X_eval, name="X_eval")
    est = make_estimator(name, n_components=n_components, sigma=sigma, kernel=kernel, ell=ell, m=m,
                         random_state=random_state)
    t0 = time.perf_counter()
    est.fit(X_train)
    t1 = time.perf_counter()
    Z = est.transform(X_eval)
    t2 = time.perf_counter()
    method = METHODS[name]
    breakdown = getattr(est, "fit_time_breakdown_", None)
    gram_error = est.gram_error(X_train) if measure_gram_error and hasattr(est, "gram_error") else None
    return MethodResult(
        name=name, label=method.label, group=method.group, ell=float(ell), m=_reduced_size(est, X_train.shape[0]),
        n_train=int(X_train.shape[0]), embedding=np.asarray(Z, dtype=np.float64),
        normalized_eigenvalues=np.asarray(est.normalized_eigenvalues_, dtype=np.float64),
        fit_seconds=t1 - t0, transform_seconds=t2 - t1,
        stored_points=_stored_points(est, X_train.shape[0]),
        fit_time_breakdown=None if breakdown is None else {k: float(v) for k, v in breakdown.items()},
        gram_error=None if gram_error is None else {k: float(v) for k, v in gram_error.items()},
    )


def compare(result: MethodResult, exact: MethodResult) -> dict:
    """One tidy row: accuracy and speed of ``result`` relative to exact KPCA.

    Speedups are exact time / method time (above 1 means faster). Where the
    result carries them, the parts of the fit time (``fit_<part>_seconds``, from
    ``fit_time_breakdown_``) and the Gram matrix's spectral-norm error
    (``gram_spectral_error``, ``gram_relative_error``) are added; they are NaN
    for the other methods so every row has the same columns.

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> ex = fit_method("exact", X, n_components=2, sigma=1.0)
    >>> round(compare(ex, ex)["alignment_error"], 6)
    0.0
    """
    if result.embedding.shape[0] != exact.embedding.shape[0]:
        raise ValueError("result and exact embed different numbers of rows; evaluate both on the same X_eval.")
    return {
        "method": result.label,
        "name": result.name,
        "group": result.group,
        "ell": result.ell,
        "m": result.m,
        "retained": result.m / result.n_train,
        "alignment_error": alignment_error(exact.embedding, result.embedding),
        "eigenvalue_deviation": eigenvalue_deviation(exact.normalized_eigenvalues, result.normalized_eigenvalues),
        "fit_seconds": result.fit_seconds,
        "transform_seconds": result.transform_seconds,
        "train_speedup": exact.fit_seconds / max(result.fit_seconds, 1e-9),
        "test_speedup": exact.transform_seconds / max(result.transform_seconds, 1e-9),
        "stored_points": result.stored_points,
        **_breakdown_columns(result.fit_time_breakdown),
        **_gram_error_columns(result.gram_error),
        "error": "",
    }


#: Parts of ``fit_time_breakdown_`` that get their own column (the reduced-set construction's).
BREAKDOWN_PARTS = ("exact_kpca", "construction")


def _breakdown_columns(breakdown: dict | None) -> dict:
    breakdown = breakdown or {}
    return {f"fit_{part}_seconds": float(breakdown.get(part, float("nan"))) for part in BREAKDOWN_PARTS}


def _gram_error_columns(gram_error: dict | None) -> dict:
    gram_error = gram_error or {}
    return {"gram_spectral_error": float(gram_error.get("spectral_norm", float("nan"))),
            "gram_relative_error": float(gram_error.get("relative", float("nan")))}


def _failed_row(name: str, ell: float, m: int, n: int, message: str) -> dict:
    method = METHODS[name]
    row = {"method": method.label, "name": name, "group": method.group, "ell": float(ell), "m": m,
           "retained": m / n, "error": message}
    for k in ("alignment_error", "eigenvalue_deviation", "fit_seconds", "transform_seconds",
              "train_speedup", "test_speedup", "stored_points"):
        row[k] = float("nan")
    row.update(_breakdown_columns(None), **_gram_error_columns(None))
    return row


#: Methods whose training grows like n * m * iterations (k-means, herding): slow when m is large.
SLOW_AT_LARGE_M = ("wnystrom", "rskpca_kmeans", "rskpca_herding")


def sweep_point(X_train, X_eval, exact: MethodResult, *, ell: float, methods, n_components: int, sigma: float,
                kernel: str = "gaussian", random_state=0, max_m: dict | None = None) -> list[dict]:
    """Rows of :func:`compare` for every method in ``methods`` at one ell.

    The shadow is run once to get m; a method that cannot run at this ell (for
    example ``n_components > m`` when the shadow keeps very few points) gives a
    row with NaN values and the reason in ``error`` instead of stopping the sweep.
    ``max_m`` maps method names to the largest m they are run at (an
    interactive view skips the slow ones at large m); skipped methods get a row
    saying so.

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> ex = fit_method("exact", X, n_components=2, sigma=1.0)
    >>> rows = sweep_point(X, X, ex, ell=3.0, methods=["rskpca", "nystrom"], n_components=2, sigma=1.0)
    >>> [r["method"] for r in rows]
    ['ShDE + RSKPCA', 'Nystrom']
    """
    X_train = check_array_2d(X_train, name="X_train", min_samples=2)
    m = shadow_centers(X_train, sigma=sigma, ell=ell, kernel=kernel).m
    rows = []
    for name in methods:
        if METHODS[name].group == "exact":
            continue
        cap = (max_m or {}).get(name)
        if cap is not None and m > cap:
            rows.append(_failed_row(name, ell, m, X_train.shape[0], f"skipped: m = {m} is above {cap}, "
                                    "where this method takes long"))
            continue
        try:
            res = fit_method(name, X_train, X_eval, n_components=n_components, sigma=sigma, kernel=kernel,
                             ell=ell, m=m, random_state=random_state)
        except (ValueError, np.linalg.LinAlgError, MemoryError) as exc:
            rows.append(_failed_row(name, ell, m, X_train.shape[0], str(exc)))
            continue
        rows.append(compare(res, exact))
    return rows


def method_sweep(X_train, X_eval=None, *, ells, methods, n_components: int, sigma: float, kernel: str = "gaussian",
                 random_state=0, progress: Callable[[float], None] | None = None) -> list[dict]:
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
    exact = fit_method("exact", X_train, X_eval, n_components=n_components, sigma=sigma, kernel=kernel,
                       random_state=random_state)
    rows: list[dict] = []
    ells = list(ells)
    for i, ell in enumerate(ells):
        rows += sweep_point(X_train, X_eval, exact, ell=float(ell), methods=methods, n_components=n_components,
                            sigma=sigma, kernel=kernel, random_state=random_state)
        if progress is not None:
            progress((i + 1) / len(ells))
    return rows


def shadow_sweep(X, *, ells, sigma: float, kernel: str = "gaussian") -> list[dict]:
    """m, m/n, eps and the selection time of the shadow at every ell.

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
        rows.append({"ell": float(ell), "m": s.m, "retained": s.m / s.n, "eps": s.eps,
                     "shadow_seconds": time.perf_counter() - t0})
    return rows


def aligned_embeddings(results, exact: MethodResult) -> dict[str, np.ndarray]:
    """Each method's embedding in the exact embedding's frame (so plots do not flicker).

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> ex = fit_method("exact", X, n_components=2, sigma=1.0)
    >>> list(aligned_embeddings([ex], ex))
    ['Exact KPCA']
    """
    return {r.label: (r.embedding if r is exact else align(exact.embedding, r.embedding)) for r in results}



def _classifier(name: str):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier

    if name == "knn":
        return KNeighborsClassifier(n_neighbors=3)
    if name == "lda":
        return LinearDiscriminantAnalysis()
    if name == "logistic":
        return LogisticRegression(max_iter=1000)
    raise ValueError(f"Unknown classifier {name!r}; choose one of {sorted(CLASSIFIERS)}.")


def cross_validate_classifier(X, y, *, method: str, classifier: str, n_components: int, sigma: float,
                              kernel: str = "gaussian", ell: float = 4.0, folds: int = 5,
                              random_state=0) -> dict:
    """Cross-validated accuracy of ``Pipeline(kernel PCA features, classifier)``.

    Kernelization (seed 003): a linear classifier on kernel PCA features is a
    kernel classifier; with RSKPCA features it trains and predicts through m
    centers instead of n points.

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
        Class labels.
    method : str
        A key of :data:`rskpca.evaluation.methods.METHODS` (e.g. ``"rskpca"`` or ``"exact"``).
    classifier : {"knn", "lda", "logistic"}
    n_components, sigma, kernel, ell
        Kernel PCA settings (ell is ignored by exact KPCA).
    folds : int, default=5
        Stratified folds (shuffled with ``random_state``).

    Returns
    -------
    dict
        ``accuracy``, ``accuracy_std``, ``fit_seconds`` and ``predict_seconds``
        (means over folds), ``folds``, ``scores`` (one per fold).

    Raises
    ------
    ValueError
        Fewer than 2 classes, a class with fewer members than folds, or bad settings.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(size=(30, 2)), rng.normal(loc=6.0, size=(30, 2))])
    >>> y = np.repeat([0, 1], 30)
    >>> res = cross_validate_classifier(X, y, method="rskpca", classifier="knn", n_components=2, sigma=2.0)
    >>> res["accuracy"]
    1.0
    """
    from sklearn.model_selection import StratifiedKFold, cross_validate
    from sklearn.pipeline import Pipeline

    X = check_array_2d(X, name="X", min_samples=2)
    y = np.asarray(y)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"y has {y.shape[0]} labels for {X.shape[0]} rows; give one label per row.")
    classes, counts = np.unique(y.astype(str), return_counts=True)
    if classes.size < 2:
        raise ValueError("The label column has a single class; classification needs at least two.")
    if isinstance(folds, bool) or int(folds) < 2:
        raise ValueError(f"folds must be an integer >= 2; got {folds!r}.")
    if counts.min() < folds:
        raise ValueError(f"The smallest class has {counts.min()} row(s), fewer than the {folds} folds; "
                         "lower the number of folds or choose another label column.")
    pipe = Pipeline([
        ("kpca", make_estimator(method, n_components=n_components, sigma=sigma, kernel=kernel, ell=ell,
                                random_state=random_state)),
        ("clf", _classifier(classifier)),
    ])
    cv = StratifiedKFold(n_splits=int(folds), shuffle=True, random_state=random_state)
    out = cross_validate(pipe, X, y.astype(str), cv=cv, error_score="raise")
    return {
        "accuracy": float(np.mean(out["test_score"])),
        "accuracy_std": float(np.std(out["test_score"])),
        "fit_seconds": float(np.mean(out["fit_time"])),
        "predict_seconds": float(np.mean(out["score_time"])),
        "folds": int(folds),
        "scores": [float(v) for v in out["test_score"]],
    }
