"""Seeded uniform draws of rows: one home for "m rows at random, without replacement, in order".

Subsampled KPCA and Nystrom landmarks (Williams & Seeger 2001), KDE paring, the rows the
bounds measure on, sigma's median heuristic and the evaluation's row caps all draw a
uniform subset of rows. They draw it here, so the same seed gives the same rows wherever
the same generator is passed, and the rows come back sorted: reading them keeps the
data's order (and its memory locality).
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["uniform_rows", "rows_within"]


def uniform_rows(n: int, size: int, random_state=None) -> np.ndarray:
    """Sorted indices of ``size`` of ``n`` rows, drawn uniformly without replacement.

    ``random_state``: an int, None or ``RandomState`` (scikit-learn's
    ``check_random_state``), or a ``numpy.random.Generator``, used as given (its state
    advances, so a caller that keeps drawing from it gets the next numbers).

    >>> uniform_rows(10, 3, 0).tolist()
    [2, 4, 8]
    >>> uniform_rows(10, 3, np.random.default_rng(0)).tolist()
    [5, 6, 9]
    """
    rng = random_state if isinstance(random_state, np.random.Generator) else check_random_state(random_state)
    return np.sort(rng.choice(int(n), size=int(size), replace=False))


def rows_within(n: int, budget: int, random_state=None) -> np.ndarray:
    """Sorted row numbers: all ``n`` rows when they are at most ``budget``, else :func:`uniform_rows`' draw of
    ``budget`` of them (what a chart draws, what a measurement runs on, under a cap).

    >>> rows_within(5, 10).tolist(), rows_within(1000, 3, np.random.default_rng(0)).size
    ([0, 1, 2, 3, 4], 3)
    """
    return np.arange(int(n)) if n <= budget else uniform_rows(n, budget, random_state)
