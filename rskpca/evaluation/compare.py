"""Compare fitted methods with exact KPCA, one row each: the one evaluation path.

The app's Embeddings, Speedups and Kernelization views, ``rskpca bench methods`` and
``rskpca experiment`` all fit through :mod:`rskpca.evaluation.fitting`
(:func:`~rskpca.evaluation.fitting.fit_method`, :func:`~rskpca.evaluation.fitting.fit_exact`) and
turn each fit into a row with :func:`compare` (:func:`failed_row` for a method that did not run);
:func:`sweep_point` and :func:`method_sweep` do so over ell. Rows use the vocabulary of
:mod:`rskpca.evaluation.result_columns`. Nothing here draws; caching and progress are the app's.

Protocol (stated wherever the numbers are shown): every method is trained on the same rows
``X_train`` and timed under the same :class:`~rskpca.evaluation.timing.Timing`; the
embedding of ``X_eval`` is compared with exact KPCA's embedding of the same rows after the
least-squares alignment of Section 6 of Kingravi et al. (2013); exact KPCA's time is its
fastest scikit-learn solver's. All budgeted methods get the m that the shadow produced at
ell, so comparisons are at equal m.
"""

from __future__ import annotations

import time
from enum import Enum

import numpy as np

from rskpca.core.progress import ProgressCallback, paced
from rskpca.core.validation import check_array_2d, check_positive
from rskpca.core.metrics import align, alignment_error, eigenvalue_deviation
from rskpca.core.shadow import shadow_centers
from rskpca.evaluation.fitting import EXACT_SOLVERS, MethodResult, fit_exact, fit_method
from rskpca.evaluation.methods import METHODS, REFERENCE, SLOW_ABOVE_M, check_methods
from rskpca.evaluation.timing import Timing

__all__ = ["Outcome", "compare", "failed_row", "sweep_point", "method_sweep", "shadow_sweep", "ell_grid",
           "aligned_embeddings"]


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
        if method is REFERENCE:
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
                 progress: ProgressCallback | None = None) -> list[dict]:
    """:func:`sweep_point` over every ell in ``ells`` (exact KPCA fitted once).

    ``progress(fraction, message)`` (:mod:`rskpca.core.progress`) is called after each ell.

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
    tick = paced(progress, len(ells))  # later ells, larger m: longer steps
    for ell in ells:
        rows += sweep_point(X_train, X_eval, exact, ell=float(ell), methods=methods, n_components=n_components,
                            sigma=sigma, kernel=kernel, random_state=random_state, timing=timing)
        tick(f"values of ell (ell = {float(ell):g} done)")
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
