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

__all__ = ["nearest_of_candidates", "prefix_lengths", "smallest_by_products", "weighted_cooccurrence"]


#: Values per group of :func:`smallest_by_products`' first pass (its minima bound the k-th smallest).
_GROUP = 8


@nb.njit(cache=True, nogil=True)
def smallest_by_products(G, c2, k, cand, row0):
    """Rows ``row0 + i``: the k centers with the smallest ``c2[j] - 2 G[i, j]``, into ``cand[row0 + i, :k]``.

    ``G`` is a block of products ``x_i . c_j`` and ``c2`` the centers' squared norms: the value is
    the squared distance less ``|x_i|^2``, the same for every center, so the order is the
    distances' (to rounding; :func:`nearest_of_candidates` then settles it exactly). Ties go to
    the lower index.

    Two passes a row, without a branch per value: the minima of groups of ``_GROUP`` values, whose
    k-th smallest ``t`` bounds the k-th smallest value (k groups hold a value at most ``t``); then
    the indices of the values at most ``t`` (at most ``k * _GROUP``, often about k), of which the k
    smallest are kept by insertion. A one-pass insertion over every value measured twice the time
    (a mispredicted branch at each of its insertions).
    """
    b, m = G.shape
    groups = (m + _GROUP - 1) // _GROUP
    vals = np.empty(groups * _GROUP)
    minima = np.empty(groups)
    bound = np.empty(k)
    keep = np.empty(m, np.int64)
    for i in range(b):
        for j in range(m):
            vals[j] = c2[j] - 2.0 * G[i, j]
        for j in range(m, groups * _GROUP):
            vals[j] = np.inf
        for g in range(groups):
            low = vals[g * _GROUP]
            for t in range(1, _GROUP):
                low = min(low, vals[g * _GROUP + t])
            minima[g] = low
        t = np.inf
        if groups >= k:
            for a in range(k):
                _insert_sorted(bound, a, minima[a])
            for g in range(k, groups):
                if minima[g] < bound[k - 1]:
                    _insert_sorted(bound, k - 1, minima[g])
            t = bound[k - 1]
        kept = 0
        for j in range(m):
            keep[kept] = j
            kept += vals[j] <= t
        # the k smallest of the kept (in index order: an equal value stays behind, so ties go to the lower index)
        for a in range(kept):
            j = keep[a]
            v = vals[j]
            last = min(a, k - 1)
            if a >= k and v >= vals[keep[k - 1]]:
                continue
            p = last
            while p > 0 and vals[keep[p - 1]] > v:
                keep[p] = keep[p - 1]
                p -= 1
            keep[p] = j
        for a in range(k):
            cand[row0 + i, a] = keep[a]


@nb.njit(cache=True, nogil=True, inline="always")
def _insert_sorted(vals, last, v):
    """``v`` into ``vals[:last + 1]`` kept ascending: ``vals[last]`` drops."""
    p = last
    while p > 0 and vals[p - 1] > v:
        vals[p] = vals[p - 1]
        p -= 1
    vals[p] = v


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
def prefix_lengths(sorted_dist, group, radius, out):
    """``out[i]``: how many of ``sorted_dist[group[i]]`` (ascending) are at most ``radius[i]``.

    ``np.searchsorted(sorted_dist[group[i]], radius[i], side="right")`` for every row at once.
    """
    for i in range(group.shape[0]):
        row = sorted_dist[group[i]]
        lo, hi = 0, row.shape[0]
        while lo < hi:
            mid = (lo + hi) // 2
            if row[mid] <= radius[i]:
                lo = mid + 1
            else:
                hi = mid
        out[i] = lo


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
