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

__all__ = ["nearest_of_candidates", "smallest_by_products", "weighted_cooccurrence"]


@nb.njit(cache=True, nogil=True, inline="always")
def _insert_ascending(vals, idx, last, v, j):
    """``(v, j)`` into ``vals[:last + 1]`` kept ascending (an equal value stays behind): ``vals[last]`` drops."""
    p = last
    while p > 0 and vals[p - 1] > v:
        vals[p] = vals[p - 1]
        idx[p] = idx[p - 1]
        p -= 1
    vals[p] = v
    idx[p] = j


@nb.njit(cache=True, nogil=True)
def smallest_by_products(G, c2, k, cand, row0):
    """Rows ``row0 + i``: the k centers with the smallest ``c2[j] - 2 G[i, j]``, into ``cand[row0 + i, :k]``.

    ``G`` is a block of products ``x_i . c_j`` and ``c2`` the centers' squared norms: the value is
    the squared distance less ``|x_i|^2``, the same for every center, so the order is the
    distances' (to rounding; :func:`nearest_of_candidates` then settles it exactly). One pass
    over each row, keeping the k smallest so far in order: a center that does not beat the
    k-th costs one comparison.
    """
    b, m = G.shape
    vals = np.empty(k)
    idx = np.empty(k, np.int64)
    for i in range(b):
        for a in range(k):
            _insert_ascending(vals, idx, a, c2[a] - 2.0 * G[i, a], a)
        for j in range(k, m):
            v = c2[j] - 2.0 * G[i, j]
            if v < vals[k - 1]:
                _insert_ascending(vals, idx, k - 1, v, j)
        for a in range(k):
            cand[row0 + i, a] = idx[a]


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
