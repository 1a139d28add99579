"""Compiled loops of the landmark graph (imported on first use: numba loads here).

Module-level functions, so that numba's on-disk cache serves later processes. Distances are
:func:`rskpca.core.shadow._compiled_kernels.squared_distance`, numpy's own bits for
``((C[j] - X[i]) ** 2).sum()``, so a choice among near-equal distances is the one the literal
row-by-row computation (``tests/reference.py``) makes.
"""

import math

import numba as nb
import numpy as np

from rskpca.core.shadow._compiled_kernels import leaf_sum, squared_distance

__all__ = ["column_moments", "landmark_weights", "nearest_representative", "nearest_unit_row", "nearest_of_candidates",
           "prefix_lengths", "smallest_by_products", "smallest_of_rows", "weighted_cooccurrence"]


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
    minima, bound, keep = np.empty(groups), np.empty(k), np.empty(m, np.int64)
    for i in range(b):
        for j in range(m):
            vals[j] = c2[j] - 2.0 * G[i, j]
        _k_smallest(vals, m, k, minima, bound, keep)
        for a in range(k):
            cand[row0 + i, a] = keep[a]


@nb.njit(cache=True, nogil=True)
def smallest_of_rows(X, mean, Ct, c2, k, cand):
    """:func:`smallest_by_products` with the products computed here: rows ``X`` (b x d) against the
    centers ``Ct`` (d x m, less ``mean``), into ``cand[:b, :k]``. For few features, where a GEMM per
    small block of rows costs more in calls than in arithmetic."""
    d, m = Ct.shape
    groups = (m + _GROUP - 1) // _GROUP
    vals = np.empty(groups * _GROUP)
    minima, bound, keep = np.empty(groups), np.empty(k), np.empty(m, np.int64)
    for i in range(X.shape[0]):
        for j in range(m):
            vals[j] = c2[j]
        for t in range(d):
            x = -2.0 * (X[i, t] - mean[t])
            for j in range(m):
                vals[j] += x * Ct[t, j]
        _k_smallest(vals, m, k, minima, bound, keep)
        for a in range(k):
            cand[i, a] = keep[a]


@nb.njit(cache=True, nogil=True, inline="always")
def _k_smallest(vals, m, k, minima, bound, keep):
    """``keep[:k]``: the indices of the k smallest of ``vals[:m]``, ascending, ties to the lower index (the
    two passes of :func:`smallest_by_products`; ``vals`` has room for whole groups)."""
    groups = minima.shape[0]
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
        if a >= k and v >= vals[keep[k - 1]]:
            continue
        p = min(a, k - 1)
        while p > 0 and vals[keep[p - 1]] > v:
            keep[p] = keep[p - 1]
            p -= 1
        keep[p] = j


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
    k, d = cand.shape[1], X.shape[1]
    # up to 128 features numpy sums in one leaf: leaf_sum is squared_distance then, and called directly it
    # compiles into this loop (through squared_distance the refinement took twice as long)
    short = d <= 128
    d_buf = np.empty(k)
    i_buf = np.empty(k, np.int64)
    for i in range(start, stop):
        top = 0.0
        for a in range(k):
            j = cand[i, a]
            s = math.sqrt(leaf_sum(X, i, C, j, 0, d) if short else squared_distance(X, i, C, j))
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
def landmark_weights(dist, scale):
    """Each row's ``exp(-scale * d^2)`` divided by the row's sum, relative to the row's nearest (the largest
    term is exactly 1 before the division, so no row underflows to all zeros: the log-sum-exp trick)."""
    n, K = dist.shape
    V = np.empty((n, K))
    for i in range(n):
        near = dist[i, 0] * dist[i, 0]
        for a in range(1, K):
            near = min(near, dist[i, a] * dist[i, a])
        total = 0.0
        for a in range(K):
            v = math.exp(-(dist[i, a] * dist[i, a] - near) * scale)
            V[i, a] = v
            total += v
        for a in range(K):
            V[i, a] /= total
    return V


@nb.njit(cache=True, nogil=True)
def column_moments(idx, values, row_weights, coef):
    """``(sum_i r_i u_ij^2, sum_i r_i u_ij^4)`` for the rows ``u_i = sum_a values[i, a] coef[idx[i, a]]``.

    The moments of ``U = Z @ coef`` for Z with K entries a row, without the n x k matrix.
    """
    n, K = idx.shape
    k = coef.shape[1]
    u = np.empty(k)
    mass, peak = np.zeros(k), np.zeros(k)
    for i in range(n):
        u[:] = 0.0
        for a in range(K):
            v = values[i, a]
            row = idx[i, a]
            for j in range(k):
                u[j] += v * coef[row, j]
        r = row_weights[i]
        for j in range(k):
            q = u[j] * u[j]
            mass[j] += r * q
            peak[j] += r * q * q
    return mass, peak


@nb.njit(cache=True, nogil=True)
def nearest_unit_row(E, centers, out):
    """``out[i]``: the row of ``centers`` nearest to ``[1, E[i]]`` scaled to unit length (ties: lowest)."""
    n, k = E.shape
    for i in range(n):
        norm = 1.0
        for j in range(k):
            norm += E[i, j] * E[i, j]
        scale = 1.0 / math.sqrt(norm)
        best, best_at = np.inf, 0
        for c in range(centers.shape[0]):
            t = centers[c, 0] - scale
            s = t * t
            for j in range(k):
                t = centers[c, j + 1] - E[i, j] * scale
                s += t * t
            if s < best:
                best, best_at = s, c
        out[i] = best_at


@nb.njit(cache=True, nogil=True)
def nearest_representative(X, Pt, near, r, start, stop):
    """Rows ``start:stop``: ``near[i]``, the nearest column of ``Pt`` (d x p, ties: lowest), and ``r[i]``, its
    distance, both from direct differences (no product rounding)."""
    d, p = Pt.shape
    acc = np.empty(p)
    for i in range(start, stop):
        acc[:] = 0.0
        for t in range(d):
            x = X[i, t]
            for q in range(p):
                diff = x - Pt[t, q]
                acc[q] += diff * diff
        best, at = acc[0], 0
        for q in range(1, p):
            if acc[q] < best:
                best, at = acc[q], q
        near[i] = at
        r[i] = math.sqrt(best)


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
