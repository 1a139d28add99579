"""Compiled loops of the landmark graph (imported on first use: numba loads here).

Module-level functions, so that numba's on-disk cache serves later processes. Distances are
:func:`rskpca.core.shadow._compiled_kernels.squared_distance`, numpy's own bits for
``((C[j] - X[i]) ** 2).sum()``, so a choice among near-equal distances is the one the literal
row-by-row computation (``tests/reference.py``) makes.
"""

import math

import numba as nb
import numpy as np

from rskpca.core.shadow._compiled_kernels import squared_distance

__all__ = ["nearest_of_candidates", "weighted_cooccurrence"]


@nb.njit(cache=True, nogil=True)
def nearest_of_candidates(X, C, cand, K, idx, dist, farthest, start, stop):
    """Rows ``start:stop``: the K candidates nearest by exact distance, ties to the lower index.

    Writes ``idx[i, :K]``, ``dist[i, :K]`` (Euclidean, ascending) and ``farthest[i]``, the
    largest exact distance among row i's candidates.
    """
    k = cand.shape[1]
    d_buf = np.empty(k)
    i_buf = np.empty(k, np.int64)
    for i in range(start, stop):
        top = 0.0
        for a in range(k):
            j = cand[i, a]
            s = math.sqrt(squared_distance(X, i, C, j))
            top = max(top, s)
            # insertion by (distance, index)
            p = a
            while p > 0 and (d_buf[p - 1] > s or (d_buf[p - 1] == s and i_buf[p - 1] > j)):
                d_buf[p] = d_buf[p - 1]
                i_buf[p] = i_buf[p - 1]
                p -= 1
            d_buf[p] = s
            i_buf[p] = j
        for a in range(K):
            idx[i, a] = i_buf[a]
            dist[i, a] = d_buf[a]
        farthest[i] = top


@nb.njit(cache=True, nogil=True)
def weighted_cooccurrence(idx, values, row_weights, position, p):
    """``A = Z' diag(r) Z`` (p x p, dense) for the rows' K entries ``values`` at columns ``idx``.

    ``position`` maps a column of Z to its row of A (-1: left out).
    """
    A = np.zeros((p, p))
    n, K = idx.shape
    for i in range(n):
        r = row_weights[i]
        for a in range(K):
            pa = position[idx[i, a]]
            if pa < 0:
                continue
            va = r * values[i, a]
            for b in range(K):
                pb = position[idx[i, b]]
                if pb >= 0:
                    A[pa, pb] += va * values[i, b]
    return A
