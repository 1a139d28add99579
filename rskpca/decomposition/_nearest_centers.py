"""Each row's K nearest centers, exactly: the landmark graph's one pass over the rows.

Candidates come from blocks of products ``X C'`` (a GEMM per block of rows, on the threads of
:mod:`rskpca.core.threads`; no n x m matrix is held) and a compiled pass keeping each row's
smallest; their distances are then recomputed directly, so the choice is the one a literal sort
by (distance, index) makes.

**Pruning by the triangle inequality.** On many rows the centers a row can possibly need are
bounded first, so the products cover only them. The rows are grouped by their nearest of a few
representative centers ``p`` (farthest-first). With ``D_k(p)`` the distance from ``p`` to its
k-th nearest center and ``r = |x - p|``, the k-th nearest center of x lies within
``D_k(p) + r`` of it, and a center c can be among them only if ``|p - c| <= D_k(p) + 2 r``
(``|x - c| >= |p - c| - r``). Each row's candidates are thus a prefix of the centers sorted by
distance to its representative; rows sorted by that prefix's length share one GEMM per block.
Where centers group (a mixture's components) a row's prefix is a small part of the m centers;
where they do not (wide data, where distances concentrate) the prefixes are long and the plain
search runs instead. The same bound is the "annulus" test of Hamerly's k-means (Hamerly 2010)
and of the ball-tree searches (Moore 2000), taken here once per block of rows.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from rskpca.core.threads import map_row_blocks

__all__ = ["nearest_centers", "TIE_MARGIN", "TIE_TOLERANCE"]

#: Candidates beyond the K asked for, so that ties at the K-th distance resolve by index. Few suffice: each
#: makes every row's list of candidates longer, and a row whose K-th distance comes within rounding of its
#: farthest candidate's is searched again against every center, so the choice stays exact.
TIE_MARGIN = 3
#: Relative width of "within rounding" for that check, and the slack on the pruning bound: far above the
#: distances' rounding error.
TIE_TOLERANCE = 1e-9
#: Rows per block of the candidates' search (a block x m matrix of products per thread; 512 rows were
#: faster than 128-1,024 on 1,000,000 x 10 rows against 642 centers, RESULTS.md 2026-11-29 13:40 UTC).
_CANDIDATE_ROWS = 512
#: Rows per block of the exact refinement (blocks run on the threads of rskpca.core.threads).
_BLOCK_ROWS = 16_384
#: Pruning is tried from this many rows and centers on (below, the grouping costs more than it saves).
PRUNE_MIN_ROWS = 50_000
PRUNE_MIN_CENTERS = 128
#: Pruning is used when the rows' candidate prefixes average at most this fraction of the centers (judged on
#: about _SAMPLE_ROWS rows first, then on all).
PRUNE_MAX_FRACTION = 0.6
_SAMPLE_ROWS = 2048


def nearest_centers(X, C, n_neighbors: int):
    """``(indices, distances)`` of each row's ``n_neighbors`` nearest centers, nearest first, exact.

    ``TIE_MARGIN`` more candidates than asked are ranked by ``|c|^2 - 2 x.c`` about the centers'
    mean (small products for data far from the origin); their distances are then recomputed
    directly (GEMM distances round, so near-equal ones may swap), and ties go to the lower center
    index. A row whose tie at the K-th distance reaches past the candidates is redone against every
    center. On many rows each row's products cover only the centers the triangle inequality leaves
    it (the module's docstring).

    >>> import numpy as np
    >>> idx, dist = nearest_centers(np.array([[0.0], [2.9]]), np.array([[0.0], [1.0], [3.0]]), 2)
    >>> idx.tolist(), np.round(dist, 3).tolist()
    ([[0, 1], [2, 1]], [[0.0, 1.0], [0.1, 1.9]])
    """
    # numba loads here
    from rskpca.core.landmark_kernels import nearest_of_candidates, smallest_by_products, smallest_of_rows

    X = np.ascontiguousarray(X, dtype=np.float64)
    C = np.ascontiguousarray(C, dtype=np.float64)
    K, n, m = int(n_neighbors), X.shape[0], C.shape[0]
    k = min(m, K + TIE_MARGIN)
    mean = C.mean(axis=0)
    Ct = np.ascontiguousarray((C - mean).T)
    c2 = np.einsum("ji,ji->i", Ct, Ct)
    pruned = _prefixes(X, C, k) if n >= PRUNE_MIN_ROWS and m >= PRUNE_MIN_CENTERS else None
    # a block: (rows, the centers their products need); rows a slice of X, or indices when pruned
    blocks = ([(slice(s, min(s + _CANDIDATE_ROWS, n)), None) for s in range(0, n, _CANDIDATE_ROWS)]
              if pruned is None else pruned)
    idx, dist, farthest = np.empty((n, K), np.int64), np.empty((n, K)), np.empty(n)

    def block(b):
        rows, cols = blocks[b]
        Xb = X[rows] if cols is None else np.take(X, rows, axis=0)
        cand = np.empty((Xb.shape[0], k), np.int64)
        if cols is None:
            smallest_by_products((Xb - mean) @ Ct, c2, k, cand, 0)
        else:
            smallest_of_rows(Xb, mean, np.take(Ct, cols, axis=1), np.take(c2, cols), k, cand)
            cand = np.take(cols, cand)
        i_b, d_b, f_b = np.empty((Xb.shape[0], K), np.int64), np.empty((Xb.shape[0], K)), np.empty(Xb.shape[0])
        nearest_of_candidates(Xb, C, cand, K, i_b, d_b, f_b, 0, Xb.shape[0])
        idx[rows], dist[rows], farthest[rows] = i_b, d_b, f_b

    map_row_blocks(block, range(len(blocks)))
    idx = idx.astype(np.intp)
    if k < m:
        # the K-th ties (within rounding) with a candidate's farthest: a center outside may tie with it too
        spill = np.flatnonzero(dist[:, -1] >= farthest * (1.0 - TIE_TOLERANCE))
        if spill.size:
            every = np.broadcast_to(np.arange(m), (spill.size, m))
            idx[spill], dist[spill], _ = _exact_first(X[spill], C, every, K)
    return idx, dist


def _prefixes(X, C, k: int):
    """The pruned search's blocks ``(rows, columns)``, or None where pruning would not save enough.

    ``rows``: indices of up to ``_CANDIDATE_ROWS`` rows of one representative; ``columns``: the centers
    their products need, the longest of their prefixes of the representative's order.
    """
    from rskpca.core.landmark_kernels import nearest_representative, prefix_lengths  # numba loads here

    n, m = X.shape[0], C.shape[0]
    if n == 0:
        return None
    reps = _farthest_first(C, int(np.ceil(np.sqrt(m))))
    P = C[reps]
    # each row's nearest representative (any representative gives a valid bound; the nearest a tight one)
    Pt = np.ascontiguousarray(P.T)
    D = cdist(P, C)
    by_rep = np.argsort(D, axis=1, kind="stable")
    D_sorted = np.take_along_axis(D, by_rep, axis=1)

    def lengths(rows):
        # each distance is computed from differences: rounded relative to the coordinates' size
        slack = 4 * np.finfo(np.float64).eps * np.sqrt(rows.shape[1]) * max(np.abs(rows).max(), np.abs(C).max())
        near, r = np.empty(rows.shape[0], np.int64), np.empty(rows.shape[0])

        def assign(start):
            nearest_representative(rows, Pt, near, r, start, min(start + _BLOCK_ROWS, rows.shape[0]))

        map_row_blocks(assign, range(0, rows.shape[0], _BLOCK_ROWS))
        radius = (D_sorted[near, k - 1] + 2.0 * r) * (1.0 + TIE_TOLERANCE) + 4 * slack
        length = np.empty(rows.shape[0], np.int64)
        prefix_lengths(D_sorted, near, radius, length)
        return near, length

    # whether pruning pays, from a strided sample of the rows first (on wide data it seldom does)
    if lengths(np.ascontiguousarray(X[::max(1, n // _SAMPLE_ROWS)]))[1].mean() + reps.size > PRUNE_MAX_FRACTION * m:
        return None
    near, length = lengths(X)
    if length.mean() + reps.size > PRUNE_MAX_FRACTION * m:
        return None
    # rows by representative, then by prefix length (a block's products cover its longest prefix); the key
    # fits 16 bits, which numpy sorts by radix
    per_rep = min(m + 1, 2 ** 16 // reps.size)
    order = np.argsort((near * per_rep + length * per_rep // (m + 1)).astype(np.uint16), kind="stable")
    near_sorted = near[order]
    edges = np.r_[0, np.flatnonzero(np.diff(near_sorted)) + 1, n]
    blocks = []
    for start, stop in zip(edges[:-1], edges[1:]):
        p = near_sorted[start]
        for s in range(start, stop, _CANDIDATE_ROWS):
            rows = order[s:min(s + _CANDIDATE_ROWS, stop)]
            blocks.append((rows, np.ascontiguousarray(by_rep[p, :length[rows].max()])))
    return blocks


def _farthest_first(C, count: int) -> np.ndarray:
    """Indices of ``count`` centers spread out by farthest-first traversal (Gonzalez 1985), from the one
    nearest the centers' mean: deterministic, and each center within the traversal's radius of one."""
    count = min(count, C.shape[0])
    picked = np.empty(count, np.intp)
    picked[0] = int(np.argmin(((C - C.mean(axis=0)) ** 2).sum(axis=1)))
    gap = ((C - C[picked[0]]) ** 2).sum(axis=1)
    for i in range(1, count):
        picked[i] = int(np.argmax(gap))
        gap = np.minimum(gap, ((C - C[picked[i]]) ** 2).sum(axis=1))
    return picked


def _exact_first(X, C, cand, K):
    """The K candidates nearest each row by exact distance, ties to the lower index; and the farthest."""
    from rskpca.core.landmark_kernels import nearest_of_candidates  # numba loads here

    n = X.shape[0]
    cand = np.ascontiguousarray(cand, dtype=np.int64)
    idx, dist, farthest = np.empty((n, K), np.int64), np.empty((n, K)), np.empty(n)
    map_row_blocks(lambda s: nearest_of_candidates(X, C, cand, K, idx, dist, farthest, s, min(s + _BLOCK_ROWS, n)),
                   range(0, n, _BLOCK_ROWS))
    return idx.astype(np.intp), dist, farthest
