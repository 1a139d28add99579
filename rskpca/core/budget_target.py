"""How many centers a center budget aims at on n rows: the estimators' ``max_centers`` with ``ell=None``.

One home for the rule, read by :mod:`rskpca.decomposition._center_budget` (which picks eps for it) and by the
app (which says it, and predicts the fit's cost from it, before the fit runs).
"""

from __future__ import annotations

__all__ = ["center_target", "ROWS_PER_CENTER", "MIN_TARGET"]

#: The target leaves at least this many rows per center on average (small data): with about as many
#: landmarks as rows, each row is its own nearest landmark at distance 0, its self-link outweighs
#: its other K - 1, and the landmark graph falls into near-isolated rows whose eigenvectors pick
#: out outliers. Fewer rows per center help small data with fine structure (digits, two rings of 180
#: rows); 2 leaves breast_cancer's graph a dangling set that only a stronger regularization removes
#: (``tests/benchmarks/bench_spectral.py --cases real``; RESULTS.md, 2026-11-30 10:30 UTC).
ROWS_PER_CENTER = 3
#: ... but never fewer than this many centers (tiny data: every row).
MIN_TARGET = 50


def center_target(n: int, max_centers: int) -> int:
    """The centers a budget aims at on n rows: ``max_centers``, but at most one per ``ROWS_PER_CENTER``
    rows, and never fewer than ``MIN_TARGET``.

    >>> center_target(10_992, 900), center_target(1_797, 900), center_target(150, 900)
    (900, 599, 50)
    """
    return min(int(max_centers), max(int(n) // ROWS_PER_CENTER, MIN_TARGET))
