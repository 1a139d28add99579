"""The compiled loops of :mod:`rskpca.core.shadow._compiled` (imported on first use: numba loads here).

Module-level functions, so that numba's on-disk cache serves later processes (closures are
compiled again in each one). They evaluate no kernel values, only the distances the shadow
compares with eps: :func:`squared_distance` is the compiled twin of
:func:`rskpca.core.shadow.exact_squared_distances`, bit for bit (tests/test_shadow_compiled.py).
Kernel values have one home, :mod:`rskpca.core.radial_kernels`.
"""

import math

import numba as nb
import numpy as np

__all__ = ["scan", "scan_rows", "screen_rows", "screen", "squared_distance", "cells"]


@nb.njit(cache=True, nogil=True, inline="always")
def _sq(t):
    return t * t


@nb.njit(cache=True, nogil=True)
def leaf_sum(X, i, Y, j, start, stop):
    # numpy's pairwise_sum for a run of at most 128 terms: sequential below 8 terms,
    # else 8 accumulators combined as ((0+1)+(2+3))+((4+5)+(6+7)), then the tail
    n = stop - start
    if n < 8:
        s = 0.0
        for k in range(start, stop):
            t = Y[j, k] - X[i, k]
            s += t * t
        return s
    r0, r1, r2, r3 = _sq(Y[j, start] - X[i, start]), _sq(Y[j, start + 1] - X[i, start + 1]), \
        _sq(Y[j, start + 2] - X[i, start + 2]), _sq(Y[j, start + 3] - X[i, start + 3])
    r4, r5, r6, r7 = _sq(Y[j, start + 4] - X[i, start + 4]), _sq(Y[j, start + 5] - X[i, start + 5]), \
        _sq(Y[j, start + 6] - X[i, start + 6]), _sq(Y[j, start + 7] - X[i, start + 7])
    k = start + 8
    while k + 8 <= stop:
        r0 += _sq(Y[j, k] - X[i, k])
        r1 += _sq(Y[j, k + 1] - X[i, k + 1])
        r2 += _sq(Y[j, k + 2] - X[i, k + 2])
        r3 += _sq(Y[j, k + 3] - X[i, k + 3])
        r4 += _sq(Y[j, k + 4] - X[i, k + 4])
        r5 += _sq(Y[j, k + 5] - X[i, k + 5])
        r6 += _sq(Y[j, k + 6] - X[i, k + 6])
        r7 += _sq(Y[j, k + 7] - X[i, k + 7])
        k += 8
    s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while k < stop:
        t = Y[j, k] - X[i, k]
        s += t * t
        k += 1
    return s


@nb.njit(cache=True, nogil=True)
def squared_distance(X, i, Y, j):
    """``((Y[j] - X[i]) ** 2).sum()`` with the bits numpy gives (its pairwise order)."""
    d = X.shape[1]
    if d <= 128:
        return leaf_sum(X, i, Y, j, 0, d)
    # numpy halves runs longer than 128 (the first half a multiple of 8) and adds the
    # halves' sums: the same tree, walked with an explicit stack, leaves left to right
    starts = np.empty(64, np.int64)
    stops = np.empty(64, np.int64)
    sums = np.empty(64)
    state = np.zeros(64, np.int64)  # 0: not split yet, 1: left half summed
    top = 0
    starts[0], stops[0] = 0, d
    result = 0.0
    while top >= 0:
        a, b = starts[top], stops[top]
        n = b - a
        if n <= 128 and state[top] == 0:
            value = leaf_sum(X, i, Y, j, a, b)
            top -= 1
            while True:  # hand the value up: left half kept, right half completes the parent
                if top < 0:
                    result = value
                    break
                if state[top] == 1:
                    sums[top] = value
                    state[top] = 2
                    half = (stops[top] - starts[top]) // 2
                    half -= half % 8
                    top += 1
                    starts[top], stops[top], state[top] = starts[top - 1] + half, stops[top - 1], 0
                    break
                value = sums[top] + value
                state[top] = 0
                top -= 1
        else:
            half = n // 2
            half -= half % 8
            state[top] = 1
            top += 1
            starts[top], stops[top], state[top] = a, a + half, 0
    return result


@nb.njit(cache=True, nogil=True)
def earliest_filed(X, i, P, home, cell_start, offsets, filled, slot_center, slot_P, center_rows, m, eps2, bound2):
    # The earliest of the m filed centers within eps of row i (m if none): each cell holds its
    # centers in creation order, so a cell is read up to its first center inside or the first
    # one younger than the best so far.
    K = P.shape[1]
    best = m
    for o in range(offsets.size):
        cell = home + offsets[o]
        s0 = cell_start[cell]
        for s in range(s0, s0 + filled[cell]):
            j = slot_center[s]
            if j >= best:
                break
            bound = 0.0
            for k in range(K):
                t = slot_P[s, k] - P[i, k]
                bound += t * t
            if bound < bound2 and squared_distance(X, i, X, center_rows[j]) < eps2:
                best = j
                break
    return best


@nb.njit(cache=True, nogil=True, inline="always")
def _file(i, j, P, home, cell_start, filled, slot_center, slot_P):
    # center j (row i) goes to the next free slot of its cell
    s = cell_start[home] + filled[home]
    filled[home] += 1
    slot_center[s] = j
    for k in range(P.shape[1]):
        slot_P[s, k] = P[i, k]


@nb.njit(cache=True, nogil=True)
def scan_rows(X, P, cell_of, cell_start, offsets, eps2, bound2, rows, filled, slot_center, slot_P, center_rows,
              labels, m):
    # scan's loop over the given rows in order, continuing from m filed centers; returns the new m
    for r in range(rows.size):
        i = rows[r]
        home = cell_of[i]
        best = earliest_filed(X, i, P, home, cell_start, offsets, filled, slot_center, slot_P, center_rows, m,
                              eps2, bound2)
        if best == m:
            _file(i, m, P, home, cell_start, filled, slot_center, slot_P)
            center_rows[m] = i
            m += 1
        labels[i] = best
    return m


@nb.njit(cache=True, nogil=True)
def screen_rows(X, P, cell_of, cell_start, offsets, eps2, bound2, start, stop, filled, slot_center, slot_P,
                center_rows, labels, m):
    # rows [start, stop) against the m filed centers, read only (threads share them): the
    # earliest within eps, or -1
    for i in range(start, stop):
        best = earliest_filed(X, i, P, cell_of[i], cell_start, offsets, filled, slot_center, slot_P, center_rows,
                              m, eps2, bound2)
        labels[i] = best if best < m else -1


@nb.njit(cache=True, nogil=True)
def scan(X, P, cell_of, cell_start, offsets, eps2, bound2):
    n, K = X.shape[0], P.shape[1]
    filled = np.zeros(cell_start.size - 1, np.int64)
    slot_center = np.empty(n, np.int64)  # the center filed in each slot
    slot_P = np.empty((n, K))  # its principal coordinates, next to those of its cell-mates
    center_rows = np.empty(n, np.int64)
    labels = np.empty(n, np.int64)
    m = scan_rows(X, P, cell_of, cell_start, offsets, eps2, bound2, np.arange(n), filled, slot_center, slot_P,
                  center_rows, labels, 0)
    return center_rows[:m].copy(), labels


@nb.njit(cache=True, nogil=True)
def screen(X, P, cell_of, cell_start, offsets, eps2, bound2, m):
    # rows [0, m) of X are the centers, filed in order; each later row gets the earliest of them
    # within eps, or -1 (no row becomes a center)
    n, K = X.shape[0], P.shape[1]
    filled = np.zeros(cell_start.size - 1, np.int64)
    slot_center = np.empty(m, np.int64)
    slot_P = np.empty((m, K))
    # (slots are numbered over all n rows' cells; only the centers' are used, so compact them)
    center_start = np.zeros(cell_start.size, np.int64)
    for j in range(m):
        center_start[cell_of[j] + 1] += 1
    for c in range(1, center_start.size):
        center_start[c] += center_start[c - 1]
    center_rows = np.arange(m)
    for j in range(m):
        _file(j, j, P, cell_of[j], center_start, filled, slot_center, slot_P)
    labels = np.empty(n - m, np.int64)
    for i in range(m, n):
        best = earliest_filed(X, i, P, cell_of[i], center_start, offsets, filled, slot_center, slot_P,
                              center_rows, m, eps2, bound2)
        labels[i - m] = best if best < m else -1
    return labels


@nb.njit(cache=True, nogil=True)
def cells(P, low, inverse_side, extent, strides):
    n, axes = P.shape[0], low.size
    cell_of = np.empty(n, np.int64)
    counts = np.zeros(int(np.prod(extent)) + 1, np.int64)
    for i in range(n):
        key = 0
        for a in range(axes):
            c = int(math.floor((P[i, a] - low[a]) * inverse_side)) + 1
            key += min(max(c, 1), extent[a] - 2) * strides[a]  # (the very top may round up)
        cell_of[i] = key
        counts[key] += 1
    cell_start = np.zeros(counts.size + 1, np.int64)
    for c in range(counts.size):
        cell_start[c + 1] = cell_start[c] + counts[c]
    return cell_of, cell_start
