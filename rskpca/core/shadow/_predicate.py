"""The exact predicate every shadow path decides with: ``sum((c - x) ** 2) < eps ** 2`` in float64.

The sum runs over the feature axis of a C-contiguous difference array, in numpy's own
(pairwise) order, so its bits are fixed: the compiled scan sums in the same order
(:func:`~rskpca.core.shadow._compiled.exact_squared_distance`), and the screen and the table
send every pair they cannot settle beyond rounding here. Hence all paths give the literal
Algorithm 2's result even on exact and near ties.
"""

from __future__ import annotations

import numpy as np

__all__ = ["exact_squared_distances"]


def exact_squared_distances(x: np.ndarray, C: np.ndarray) -> np.ndarray:
    """The reference predicate's distances: ``((C - x) ** 2).sum(axis=1)`` in float64.

    ``x`` may be one point (``(d,)``) against many ``C`` rows, or a ``(k, d)``
    array paired row by row with ``C``.

    >>> exact_squared_distances(np.zeros(2), np.array([[3.0, 4.0], [1.0, 0.0]])).tolist()
    [25.0, 1.0]
    """
    diff = np.ascontiguousarray(np.asarray(C, dtype=np.float64) - np.asarray(x, dtype=np.float64))
    with np.errstate(over="ignore"):  # inf is the right answer for pairs ~1e154 apart: outside
        return (diff * diff).sum(axis=1)
