"""How exact KPCA's cost grows with n, measured where it fits and predicted where it does not.

Exact kernel PCA builds an n x n matrix (8 n^2 bytes in float64) and solves an eigenproblem on it:
on a million rows that is 8 TB, which no machine here has. RSKPCA solves on m shadow centers and
runs on all n rows. To compare the two at the n of the data in use, exact KPCA is timed on seeded
*nested* subsamples of growing size (1,000, 2,000, 4,000, ... rows: each the first rows of one
seeded permutation, so every sample contains the smaller ones) until the next size would break a
:class:`ScalingBudget` (a fit's predicted time, the n x n matrix's memory), a power law
``t = a n^b`` is fitted to the measured times (least squares on log t against log n), and the time
at the full n is predicted from it. Memory is not measured: it is the kernel matrix's, 8 n^2 bytes
for exact KPCA and 8 m^2 for RSKPCA's m x m matrix (the fit's largest array; the data itself is
held either way).

Projection of new rows is timed the same way: the same batch of rows (at most
:data:`EVAL_ROWS`, the last of the permutation, so new to every subsample but the full one)
projected with each fit; exact KPCA evaluates the kernel against its n training rows, RSKPCA
against its m centers.

Nothing here draws or caches: :mod:`rskpca.plotting` draws the table, the app caches the steps
(:mod:`rskpca.ui.compute.scaling`) and shows progress through ``progress(fraction, message)``
(:mod:`rskpca.core.progress`).

Examples
--------
>>> law = fit_power_law([1000, 2000, 4000], [0.1, 0.4, 1.6])
>>> round(law.b, 6), round(law.predict(8000), 6)
(2.0, 6.4)
>>> size_ladder(10_000)
[1000, 2000, 4000, 8000, 10000]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from rskpca.core.progress import ProgressCallback
from rskpca.evaluation.fitting import fit_exact, fit_method
from rskpca.evaluation.methods import REFERENCE, SHADOW_METHOD
from rskpca.evaluation.timing import Timing
from rskpca.evaluation.units import bytes_text, seconds_text

__all__ = [
    "EVAL_ROWS", "MEASURED", "PREDICTED", "ScalingBudget", "PowerLaw", "LadderStep", "Ladder", "size_ladder",
    "kernel_matrix_bytes", "nested_rows", "eval_rows", "fit_power_law", "lookahead_s", "run_ladder", "time_exact_at",
    "time_rskpca_at", "scaling_table", "with_exact_fit", "SCALING_COLUMNS",
]

#: How many rows are projected as new points, for every fit (exact at each size, RSKPCA).
EVAL_ROWS = 1000
#: The words the table and the figures use for a time or memory that was measured, or predicted.
MEASURED, PREDICTED = "measured", "predicted"
#: Exact KPCA is at least quadratic in n (it builds the n x n matrix): the budget's look-ahead never
#: assumes a smaller exponent, because a power law fitted on small n, where fixed costs weigh, can.
_MIN_LOOKAHEAD_EXPONENT = 2.0


#: The second size of a ladder may take this many times the time budget: a power law needs two points.
SECOND_SIZE_ALLOWANCE = 4.0


@dataclass(frozen=True)
class ScalingBudget:
    """What exact KPCA may cost per size of the ladder.

    ``max_fit_s``: a size is timed only if its fit is predicted to take at most this many seconds
    (from the sizes measured so far, with an exponent of at least 2) and the previous fit took at
    most this; ``max_matrix_bytes``: and only if its n x n float64 kernel matrix (8 n^2 bytes) is at
    most this. The first size is always timed and the second within ``SECOND_SIZE_ALLOWANCE`` times
    ``max_fit_s`` (a power law needs two points; on a busy machine the first fit alone can take a
    quarter of the budget), unless a matrix breaks the memory budget.

    >>> ScalingBudget()
    ScalingBudget(max_fit_s=2.0, max_matrix_bytes=512000000)
    """

    max_fit_s: float = 2.0
    max_matrix_bytes: int = 512_000_000

    def __post_init__(self):
        if not self.max_fit_s > 0:
            raise ValueError(f"max_fit_s must be positive; got {self.max_fit_s!r}.")
        if not self.max_matrix_bytes > 0:
            raise ValueError(f"max_matrix_bytes must be positive; got {self.max_matrix_bytes!r}.")

    def describe(self) -> str:
        """The budget in words.

        >>> ScalingBudget(1.0, 512_000_000).describe()
        'each fit at most 1 s (predicted before it runs) and its n x n matrix at most 512 MB'
        """
        return (f"each fit at most {self.max_fit_s:g} s (predicted before it runs) and its n x n matrix at most "
                f"{bytes_text(self.max_matrix_bytes)}")


def kernel_matrix_bytes(n: int, columns: int | None = None) -> int:
    """Bytes of an n x ``columns`` float64 kernel matrix (n x n by default).

    >>> kernel_matrix_bytes(1_000_000) / 1e12, kernel_matrix_bytes(1000, 35)
    (8.0, 280000)
    """
    return 8 * int(n) * int(n if columns is None else columns)


@dataclass(frozen=True)
class PowerLaw:
    """``t = a n^b``, fitted by least squares on log t against log n (``points`` of them)."""

    a: float
    b: float
    points: int

    def predict(self, n) -> float | np.ndarray:
        """The law's value at n (a number or an array)."""
        return self.a * np.asarray(n, dtype=np.float64) ** self.b if np.ndim(n) else self.a * float(n) ** self.b

    def describe(self) -> str:
        """The law in words.

        >>> PowerLaw(2e-9, 2.31, 3).describe()
        't = 2e-09 n^2.31 (fitted on 3 sizes)'
        """
        return f"t = {self.a:.3g} n^{self.b:.3g} (fitted on {self.points} sizes)"


def fit_power_law(n: Sequence[float], seconds: Sequence[float]) -> PowerLaw:
    """The least-squares line through (log n, log t): ``t = a n^b``.

    Needs at least two distinct n and positive times.

    >>> law = fit_power_law([1e3, 1e4, 1e5], [1e-3, 1e-2, 1e-1])
    >>> round(law.b, 9), round(law.a, 12)
    (1.0, 1e-06)
    """
    n = np.asarray(n, dtype=np.float64)
    t = np.asarray(seconds, dtype=np.float64)
    if n.shape != t.shape or n.ndim != 1:
        raise ValueError(f"n and seconds must be 1-D of one length; got {n.shape} and {t.shape}.")
    if np.unique(n).size < 2:
        raise ValueError(f"A power law needs times at two or more sizes; got {np.unique(n).size}.")
    if not (np.all(n > 0) and np.all(t > 0) and np.all(np.isfinite(t))):
        raise ValueError("A power law needs positive sizes and positive, finite times.")
    b, log_a = np.polyfit(np.log(n), np.log(t), 1)
    return PowerLaw(a=float(np.exp(log_a)), b=float(b), points=int(n.size))


def size_ladder(n: int, *, start: int = 1000, factor: int = 2, min_sizes: int = 3) -> list[int]:
    """Sizes at which exact KPCA is timed: ``start``, ``start * factor``, ... below n, then n.

    On data too small for ``min_sizes`` such sizes (n below ``start * factor**(min_sizes - 1)``),
    the ladder is n divided by powers of ``factor`` instead, so a power law still has points.

    >>> size_ladder(1_000_000)[:4], size_ladder(1_000_000)[-2:]
    ([1000, 2000, 4000, 8000], [512000, 1000000])
    >>> size_ladder(1797), size_ladder(150)
    ([449, 898, 1797], [37, 75, 150])
    """
    n = int(n)
    if n < 2:
        raise ValueError(f"Need at least 2 rows; got {n}.")
    if n < start * factor ** (min_sizes - 1):
        sizes = [max(2, n // factor**k) for k in range(min_sizes - 1, -1, -1)]
        return sorted(set(sizes))
    sizes, size = [], int(start)
    while size < n:
        sizes.append(size)
        size *= factor
    return sizes + [n]


def nested_rows(n: int, size: int, seed: int = 0) -> np.ndarray:
    """The seeded sample of ``size`` of n rows, sorted: the first ``size`` of one seeded permutation of
    the rows, so a smaller sample is contained in every larger one (all rows at ``size = n``).

    >>> small, big = nested_rows(100, 10), nested_rows(100, 40)
    >>> bool(np.isin(small, big).all()), nested_rows(5, 5).tolist()
    (True, [0, 1, 2, 3, 4])
    """
    if size >= n:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).permutation(n)[:size])


def eval_rows(n: int, seed: int = 0, count: int = EVAL_ROWS) -> np.ndarray:
    """The rows projected as new points: the last ``count`` of :func:`nested_rows`'s permutation (at most
    half the rows), so they are in no subsample smaller than ``n - count``.

    >>> rows = eval_rows(10_000)
    >>> rows.size, bool(np.isin(rows, nested_rows(10_000, 8000)).any())
    (1000, False)
    """
    count = max(1, min(int(count), n // 2 if n >= 2 else n))
    return np.sort(np.random.default_rng(seed).permutation(n)[n - count:])


@dataclass(frozen=True)
class LadderStep:
    """One size timed: fit and projection seconds, and the kernel matrix's points (n for exact KPCA, m for
    RSKPCA)."""

    n: int
    fit_s: float
    project_s: float
    matrix_points: int


@dataclass(frozen=True)
class Ladder:
    """The sizes timed and why the ladder stopped (``stopped_at``: the first size not timed, or None when the
    last size was timed; ``reason``: "time", "memory", or "")."""

    steps: tuple[LadderStep, ...]
    sizes: tuple[int, ...]
    budget: ScalingBudget
    stopped_at: int | None = None
    reason: str = ""
    predicted_s: float = float("nan")  # the stopping size's predicted fit time (a time stop)
    notes: tuple[str, ...] = field(default=())

    @property
    def measured_n(self) -> list[int]:
        return [s.n for s in self.steps]

    def fit_law(self) -> PowerLaw | None:
        """The power law of the fit times, or None with fewer than two sizes measured."""
        return _law([s.n for s in self.steps], [s.fit_s for s in self.steps])

    def project_law(self) -> PowerLaw | None:
        """The power law of the projection times, or None with fewer than two sizes measured."""
        return _law([s.n for s in self.steps], [s.project_s for s in self.steps])

    def stop_text(self) -> str:
        """Why the ladder stopped, in words ("" when every size was timed)."""
        if self.stopped_at is None:
            return ""
        if self.reason == "memory":
            return (f"stopped before n = {self.stopped_at:,}: its n x n matrix would take "
                    f"{bytes_text(kernel_matrix_bytes(self.stopped_at))}, over the budget's "
                    f"{bytes_text(self.budget.max_matrix_bytes)}")
        return (f"stopped before n = {self.stopped_at:,}: its fit would take about {self.predicted_s:.2g} s, over "
                f"the budget's {self.budget.max_fit_s:g} s")


def _law(n, t) -> PowerLaw | None:
    ok = [(a, b) for a, b in zip(n, t) if b > 0 and math.isfinite(b)]
    if len({a for a, _ in ok}) < 2:
        return None
    return fit_power_law([a for a, _ in ok], [b for _, b in ok])


def lookahead_s(steps: Sequence[LadderStep], size: int) -> float:
    """The fit time at ``size`` predicted from the sizes timed (``steps``, at least one): the last time scaled
    by the size ratio to the power max(b, 2), b fitted on the steps (2 with one step).

    >>> lookahead_s([LadderStep(1000, 0.1, 0.0, 1000)], 2000)
    0.4
    """
    last = steps[-1]
    law = _law([s.n for s in steps], [s.fit_s for s in steps])
    b = _MIN_LOOKAHEAD_EXPONENT if law is None else max(law.b, _MIN_LOOKAHEAD_EXPONENT)
    return last.fit_s * (size / last.n) ** b


def run_ladder(measure: Callable[[int], LadderStep], sizes: Sequence[int], budget: ScalingBudget = ScalingBudget(),
               progress: ProgressCallback | None = None) -> Ladder:
    """Time ``measure(size)`` at each size, in order, until the next would break ``budget``.

    Before each size: if its n x n matrix is over ``budget.max_matrix_bytes`` the ladder stops
    ("memory"); if a size timed so far took over ``budget.max_fit_s``, or this size's fit is
    predicted to (the last time scaled by the size ratio to the power max(b, 2), b fitted on the sizes
    so far), it stops ("time"). The first size is always timed (unless over the memory budget), the
    second against ``SECOND_SIZE_ALLOWANCE`` times the budget.

    ``progress(fraction, message)`` (:mod:`rskpca.core.progress`) is called before each size is timed,
    the message naming the size and its fit's predicted time (none for the first size).

    >>> times = {1000: 0.1, 2000: 0.4, 4000: 1.6, 8000: 6.4}
    >>> lad = run_ladder(lambda k: LadderStep(k, times[k], 0.01, k), [1000, 2000, 4000, 8000])
    >>> lad.measured_n, lad.stopped_at, lad.reason
    ([1000, 2000, 4000], 8000, 'time')
    """
    sizes = [int(s) for s in sizes]
    steps: list[LadderStep] = []
    for i, size in enumerate(sizes):
        if kernel_matrix_bytes(size) > budget.max_matrix_bytes:
            return Ladder(tuple(steps), tuple(sizes), budget, stopped_at=size, reason="memory")
        predicted = float("nan")
        if steps:
            predicted = lookahead_s(steps, size)
            limit = budget.max_fit_s * (SECOND_SIZE_ALLOWANCE if len(steps) == 1 else 1.0)
            if max(s.fit_s for s in steps) > limit or predicted > limit:
                return Ladder(tuple(steps), tuple(sizes), budget, stopped_at=size, reason="time",
                              predicted_s=predicted)
        if progress is not None:
            guess = "" if math.isnan(predicted) else f", predicted {seconds_text(predicted)}"
            progress(i / len(sizes), f"exact KPCA on a seeded sample of {size:,} rows (size {i + 1} of at most "
                                     f"{len(sizes)}{guess})")
        steps.append(measure(size))
    return Ladder(tuple(steps), tuple(sizes), budget)


#: Rows of the untimed first call (:func:`_warm_once`).
_WARM_ROWS = 64
_warmed: set = set()


def _warm_once(key, run) -> None:
    """``run()`` untimed the first time ``key`` comes in this process: a fit's first call loads its
    compiled loops (numba's disk cache) and its imports, which the smallest timed size would otherwise
    count as its own fit (tests/benchmarks/RESULTS.md, 2026-11-30 02:55 UTC, has the times)."""
    if key in _warmed:
        return
    _warmed.add(key)
    try:
        run()
    except Exception:  # noqa: BLE001 - only a warm-up: the timed call that follows raises what is wrong
        pass


def time_exact_at(X: np.ndarray, size: int, *, n_components: int, sigma: float, kernel: str = "gaussian",
                  seed: int = 0, timing: Timing = Timing()) -> LadderStep:
    """Exact KPCA (scikit-learn's arpack solver) fitted on :func:`nested_rows` of ``size`` and projecting
    :func:`eval_rows`, both timed (after one untimed call on a few rows per process, :func:`_warm_once`)."""
    n = X.shape[0]
    few = X[:min(_WARM_ROWS, n)]
    if few.shape[0] > n_components + 1:
        _warm_once((REFERENCE.name, kernel, X.dtype.str), lambda: fit_exact(
            few, few[:8], n_components=n_components, sigma=sigma, kernel=kernel, solvers=("arpack",)))
    res = fit_exact(X[nested_rows(n, size, seed)], X[eval_rows(n, seed)], n_components=n_components, sigma=sigma,
                    kernel=kernel, solvers=("arpack",), timing=timing)
    return LadderStep(n=int(size), fit_s=float(res.train_s), project_s=float(res.test_s), matrix_points=int(size))


def time_rskpca_at(X: np.ndarray, size: int, *, n_components: int, sigma: float, ell: float,
                   kernel: str = "gaussian", seed: int = 0, timing: Timing = Timing(), shadow=None,
                   shadow_s: float | None = None) -> LadderStep:
    """ShDE + RSKPCA fitted on :func:`nested_rows` of ``size`` (all rows at ``size = n``; the shadow is
    part of the fit's time) and projecting :func:`eval_rows`, both timed (after one untimed call on a few
    rows per process, :func:`_warm_once`).

    At ``size = n``, ``shadow`` and ``shadow_s`` (X's shadow at sigma and ell and the seconds its scan
    took when it ran) stand for the fit's selection: its time is counted, it is not run again
    (:func:`~rskpca.evaluation.fitting.fit_method`).
    """
    n = X.shape[0]
    few = X[:min(_WARM_ROWS, n)]
    _warm_once((SHADOW_METHOD.name, kernel, X.dtype.str), lambda: fit_method(
        SHADOW_METHOD.name, few, few[:8], n_components=1, sigma=sigma, kernel=kernel, ell=ell))
    whole = size >= n and shadow is not None and shadow_s is not None
    res = fit_method(SHADOW_METHOD.name, X[nested_rows(n, size, seed)] if size < n else X, X[eval_rows(n, seed)],
                     n_components=n_components, sigma=sigma, kernel=kernel, ell=ell, timing=timing,
                     shadow=shadow if whole else None, shadow_s=shadow_s if whole else None)
    return LadderStep(n=int(size), fit_s=float(res.train_s), project_s=float(res.test_s), matrix_points=int(res.m))


#: The columns of :func:`scaling_table`, with their meaning (the page's table and its CSV).
SCALING_COLUMNS = {
    "n": "training rows",
    "rows": "which rows: a seeded nested subsample, or all rows of the data in use",
    "exact_kpca": f"exact KPCA's numbers at this n: {MEASURED}, or {PREDICTED} (the fit time: the one prediction of "
                  "exact KPCA on all rows; the projection: the power law; memory 8 n^2 bytes)",
    "exact_fit_s": "exact KPCA's fit, seconds",
    "exact_matrix_MB": "exact KPCA's n x n float64 kernel matrix, 8 n^2 bytes, in MB (10^6 bytes)",
    "exact_project_s": "exact KPCA projecting the new rows (a kernel row against n training rows each), seconds",
    "rskpca_m": "RSKPCA's shadow centers m at this n",
    "rskpca_fit_s": "ShDE + RSKPCA's fit (the shadow included), seconds; measured (on all rows: the shadow's scan "
                    "as it ran for the page, plus the solve on its centers)",
    "rskpca_matrix_MB": "RSKPCA's m x m kernel matrix, 8 m^2 bytes, in MB",
    "rskpca_project_s": "RSKPCA projecting the new rows (a kernel row against m centers each), seconds; measured",
    "fit_speedup": "exact KPCA's fit time / RSKPCA's",
    "project_speedup": "exact KPCA's projection time / RSKPCA's",
}


def scaling_table(n: int, exact: Ladder, rskpca: Sequence[LadderStep]) -> list[dict]:
    """One row per size: exact KPCA's measured times at the sizes timed, and at the full n (if not timed) its
    times predicted by the power laws, marked :data:`PREDICTED`; RSKPCA's measured times at the same sizes
    (``rskpca``: its steps, the full n among them), and the speedups.

    >>> times = {100: 0.01, 200: 0.04}
    >>> lad = run_ladder(lambda k: LadderStep(k, times[k], times[k] / 10, k), [100, 200, 800],
    ...                  ScalingBudget(max_fit_s=0.1))
    >>> rs = [LadderStep(k, 0.001, 0.0001, 10) for k in (100, 200, 800)]
    >>> [(r["n"], r["exact_kpca"], round(r["exact_fit_s"], 3)) for r in scaling_table(800, lad, rs)]
    [(100, 'measured', 0.01), (200, 'measured', 0.04), (800, 'predicted', 0.64)]
    """
    n = int(n)
    by_n = {s.n: s for s in rskpca}
    rows = []
    for step in exact.steps:
        rows.append(_row(step.n, n, MEASURED, step.fit_s, step.project_s, by_n.get(step.n)))
    if n not in exact.measured_n:
        fit_law, project_law = exact.fit_law(), exact.project_law()
        rows.append(_row(n, n, PREDICTED, fit_law.predict(n) if fit_law else float("nan"),
                         project_law.predict(n) if project_law else float("nan"), by_n.get(n)))
    return rows


def with_exact_fit(row: dict, fit_s: float) -> dict:
    """A table row with exact KPCA's fit time set to ``fit_s`` (a prediction from another model, say) and
    its fit speedup recomputed.

    >>> row = {"exact_fit_s": 1.0, "rskpca_fit_s": 0.5, "fit_speedup": 2.0}
    >>> with_exact_fit(row, 3.0)["fit_speedup"]
    6.0
    """
    rs = row.get("rskpca_fit_s", float("nan"))
    speedup = float(fit_s) / max(rs, 1e-9) if rs == rs else float("nan")
    return {**row, "exact_fit_s": float(fit_s), "fit_speedup": speedup}


def _row(size: int, n: int, status: str, fit_s: float, project_s: float, rs: LadderStep | None) -> dict:
    nan = float("nan")
    return {
        "n": int(size),
        "rows": "all rows" if size == n else "seeded nested subsample",
        "exact_kpca": status,
        "exact_fit_s": float(fit_s),
        "exact_matrix_MB": kernel_matrix_bytes(size) / 1e6,
        "exact_project_s": float(project_s),
        "rskpca_m": rs.matrix_points if rs else None,
        "rskpca_fit_s": rs.fit_s if rs else nan,
        "rskpca_matrix_MB": kernel_matrix_bytes(rs.matrix_points) / 1e6 if rs else nan,
        "rskpca_project_s": rs.project_s if rs else nan,
        "fit_speedup": float(fit_s) / max(rs.fit_s, 1e-9) if rs else nan,
        "project_speedup": float(project_s) / max(rs.project_s, 1e-9) if rs else nan,
    }
