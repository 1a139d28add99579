"""The GEMM screen of the shadow scan (Algorithm 2 for any d), and the exact predicate it defers to.

Points are taken in blocks; one GEMM per block screens the block against the
existing centers (``(eps^2 - ||x - c||^2) / 2 > 0`` with the norms folded into the
GEMM as two extra columns), and every pair the screen cannot rule out -- within a
rounding margin of the threshold or beyond it -- is re-decided with the exact
float64 predicate (:mod:`~rskpca.core.shadow._predicate`). The public entry is
:func:`rskpca.core.shadow.shadow_centers`.
"""

from __future__ import annotations

import numpy as np

from rskpca.core._scratch import scratch_array
from rskpca.core.threads import all_threads, map_row_blocks
from rskpca.core.validation import column_reduce
from rskpca.core.block_sizes import DEFAULT_BLOCK_ELEMENTS
from rskpca.core.shadow._in_order import resolve_in_order
from rskpca.core.shadow._predicate import exact_squared_distances

#: Relative rounding margin of a BLAS distance screen (here and in ``rskpca.distributed``).
#: The error of x.c - ||c||^2/2 is below ~ (d + 3) * 2^-53 * (||x||^2 + ||c||^2); the
#: margin is wider than that, and pairs inside it are re-decided exactly, so it costs
#: time only, never correctness.
SCREEN_REL_MARGIN = 1e-9
_MIN_BLOCK_ROWS = 64
_MAX_BLOCK_ROWS = 16384
# The float32 screen is used when its margin is at most this fraction of eps^2 (more
# unsure pairs would go to the exact test than the halved traffic saves).
_FLOAT32_MAX_MARGIN = 0.05
# Width of the first column chunk of centers screened (doubling after it). Each chunk step
# has a fixed cost (a GEMM call, a mask, an argmax, gathers), and on spread-out data such as
# pendigits the oldest few dozen centers cover few of a block's rows, so a wide first chunk
# takes fewer steps there and costs no more where the GEMM dominates (usps, d = 256).
_FIRST_CHUNK = 256
# Uncovered points resolved together in one block: their pairwise screen is F x F.
_MAX_FREE = 1024
# A block screened against the existing centers is split between threads from this many
# rows per thread (below, the threads' hand-off costs more than the screen).
_MIN_THREAD_ROWS = 512


class _CenterStore:
    """Growing array of centers in screening coordinates, augmented for the GEMM.

    Row ``j`` holds ``[c_j, -||c_j||^2 / 2, 1]`` and a point row is
    ``[x, 1, -(||x||^2 - eps^2) / 2]``, so one GEMM gives
    ``(eps^2 - ||x - c||^2) / 2`` (up to rounding): positive means inside.
    """

    def __init__(self, d: int, capacity: int = 256, dtype=np.float64):
        self.A = np.empty((capacity, d + 2), dtype=dtype)
        self.idx = np.empty(capacity, dtype=np.intp)
        self.m = 0

    def extend(self, rows: np.ndarray, sq: np.ndarray, idx: np.ndarray) -> None:
        need = self.m + rows.shape[0]
        if need > self.A.shape[0]:
            cap = max(need, 2 * self.A.shape[0])
            for name in ("A", "idx"):
                old = getattr(self, name)
                new = np.empty((cap,) + old.shape[1:], dtype=old.dtype)
                new[: self.m] = old[: self.m]
                setattr(self, name, new)
        self.A[self.m:need] = _as_center_rows(rows, sq)
        self.idx[self.m:need] = idx
        self.m = need


def _as_center_rows(Xs: np.ndarray, sq: np.ndarray, dtype=np.float64) -> np.ndarray:
    out = np.empty((Xs.shape[0], Xs.shape[1] + 2), dtype=dtype)
    out[:, :-2] = Xs
    out[:, -2] = -0.5 * sq
    out[:, -1] = 1.0
    return out


def _earliest_inside(G: np.ndarray, margin: float, exact_inside, mask=None) -> np.ndarray:
    """Per row of screened values ``G`` (about ``(eps^2 - d^2) / 2``), the first column inside.

    A value above ``margin`` is inside for sure, one below ``-margin`` outside for sure;
    only values in between go to ``exact_inside(rows, cols)``. Rows scan their candidates
    left to right, so pairs beyond a row's first hit are never looked at: the work after
    the GEMM is one comparison and one argmax per value, not one exact distance per pair.
    Returns -1 for rows with no center inside. ``mask``: a boolean array of G's shape to
    work in (overwritten).
    """
    cand = np.greater(G, -margin, out=mask)
    first = cand.argmax(axis=1)
    rows = np.flatnonzero(cand[np.arange(G.shape[0]), first])
    cols = first[rows]
    result = np.full(G.shape[0], -1, dtype=np.intp)
    while rows.size:
        sure = G[rows, cols] > margin
        result[rows[sure]] = cols[sure]
        rows, cols = rows[~sure], cols[~sure]
        if not rows.size:
            break
        inside = exact_inside(rows, cols)
        result[rows[inside]] = cols[inside]
        rows, cols = rows[~inside], cols[~inside]
        cand[rows, cols] = False  # ruled out exactly: look for the row's next candidate
        nxt = cand[rows].argmax(axis=1)
        ok = cand[rows, nxt]
        rows, cols = rows[ok], nxt[ok]
    return result


def _earliest_center(Pa, X, block, store, margin, exact_eps2, center_rows) -> np.ndarray:
    """Earliest existing center inside eps for each row of ``block`` (-1 if none).

    ``center_rows[store.idx[j]]`` is center ``j`` in original coordinates (the exact predicate's).

    Centers are screened in column chunks of doubling width, oldest first, and a row
    leaves the screen as soon as a chunk covers it: where the old centers of a region
    absorb most of its later points (clustered data), most rows stop after the first chunk
    and the work falls below the full ``rows x m`` GEMM.
    """
    covered_by = np.full(block.size, -1, dtype=np.intp)
    rows = np.arange(block.size)
    P = Pa[block]
    c0, width = 0, _FIRST_CHUNK
    # The screened values and their mask go to kept buffers (rskpca.core._scratch), so their
    # pages are faulted in once, not at every chunk
    most = block.size * store.m
    with scratch_array(most, store.A.dtype) as G_space, scratch_array(most, bool) as mask_space:
        while c0 < store.m and rows.size:
            c1 = min(store.m, c0 + width)
            shape = (rows.size, c1 - c0)
            G = np.matmul(P, store.A[c0:c1].T, out=G_space[:rows.size * (c1 - c0)].reshape(shape))
            first = _earliest_inside(G, margin, lambda r, c: exact_squared_distances(
                X[block[rows[r]]], center_rows[store.idx[c0 + c]]) < exact_eps2,
                mask=mask_space[:G.size].reshape(shape))
            hit = first >= 0
            covered_by[rows[hit]] = c0 + first[hit]
            rows, P = rows[~hit], P[~hit]
            c0, width = c1, 2 * width
    return covered_by


def _earliest_center_on_threads(Pa, X, block, store, margin, exact_eps2) -> np.ndarray:
    """:func:`_earliest_center` on row parts of ``block`` shared between threads.

    The rows of a block are independent once the centers are fixed (the store only grows
    after the block is screened), so the parts run side by side and give the same result.
    """
    parts = min(all_threads(), block.size // _MIN_THREAD_ROWS)
    if parts <= 1:
        return _earliest_center(Pa, X, block, store, margin, exact_eps2, X)
    covered_by = np.empty(block.size, dtype=np.intp)
    step = -(-block.size // parts)

    def part(start):
        rows = slice(start, start + step)
        covered_by[rows] = _earliest_center(Pa, X, block[rows], store, margin, exact_eps2, X)

    map_row_blocks(part, range(0, block.size, step))
    return covered_by


def _screen_margin(sq_max: float, eps2: float, d: int) -> float:
    """Absolute margin of the screen on rows whose squared norms are at most ``sq_max``."""
    rel = max(SCREEN_REL_MARGIN, 8.0 * (d + 4) * 2.0**-53)
    return rel * (2.0 * sq_max + eps2)


def _screen_frame(Z: np.ndarray, *others: np.ndarray):
    """``(shift, scale)``: screen on ``(Z - shift) * scale`` with a power-of-two scale.

    The shift is the mean of ``Z``; the scale also covers the ``others`` screened in the same frame.

    Mean-centered coordinates have smaller norms, hence a tighter margin; the
    power-of-two scale (exact) keeps the squared norms finite for data near the
    float64 range. Exact re-checks always use the original coordinates.
    """
    shift = column_reduce(np.add, Z) / max(Z.shape[0], 1)
    # max |a - shift| from the column extremes (the same float: rounding is monotone), with
    # no n x d temporaries (their fresh pages would be faulted in at every call)
    top = max(max(float((column_reduce(np.maximum, A) - shift).max(initial=0.0)),
                  float((shift - column_reduce(np.minimum, A)).max(initial=0.0))) for A in (Z, *others))
    scale = 2.0 ** -np.frexp(top)[1] if top > 0 else 1.0
    return shift, scale


def _point_rows(Xs: np.ndarray, sq: np.ndarray, eps2: float) -> np.ndarray:
    """``[x, 1, -(||x||^2 - eps^2) / 2]`` per row: the GEMM partner of :func:`_as_center_rows`."""
    Pa = np.empty((Xs.shape[0], Xs.shape[1] + 2))
    Pa[:, :-2] = Xs
    Pa[:, -2] = 1.0
    Pa[:, -1] = -0.5 * (sq - eps2)
    return Pa


def blas_earliest_center(X, centers, eps: float) -> np.ndarray:
    """Per row of X, the first row of ``centers`` strictly within ``eps`` (-1 if none), by GEMMs.

    The "blas" path of :func:`~rskpca.core.shadow.earliest_center_within` (its parameters and
    result) and the screen of :class:`~rskpca.core.shadow.StreamingShadow`: one GEMM per column
    chunk of centers, rows leaving as soon as a chunk covers them, pairs within the rounding
    margin re-decided with :func:`exact_squared_distances`, so the decision is the shadow's own
    float64 predicate ``sum((c - x) ** 2) < eps ** 2``.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    C = np.ascontiguousarray(centers, dtype=np.float64)
    n, d = X.shape
    m = C.shape[0]
    if m == 0 or n == 0:
        return np.full(n, -1, dtype=np.intp)
    exact_eps2 = eps * eps
    shift, scale = _screen_frame(C, X)
    Xs, Cs = (X - shift) * scale, (C - shift) * scale
    eps2 = exact_eps2 * scale * scale
    sq_x, sq_c = np.einsum("ij,ij->i", Xs, Xs), np.einsum("ij,ij->i", Cs, Cs)
    margin = _screen_margin(max(float(sq_x.max()), float(sq_c.max())), eps2, d)
    store = _CenterStore(d, capacity=m)
    store.extend(Cs, sq_c, np.arange(m))
    Pa = _point_rows(Xs, sq_x, eps2)
    out = np.empty(n, dtype=np.intp)
    step = int(min(_MAX_BLOCK_ROWS, max(_MIN_BLOCK_ROWS, DEFAULT_BLOCK_ELEMENTS // m)))
    for start in range(0, n, step):
        block = np.arange(start, min(n, start + step))
        out[block] = _earliest_center(Pa, X, block, store, margin, exact_eps2, C)
    return out


def _pairs_inside(G: np.ndarray, margin: float, exact_inside, mask=None):
    """All (row, col) with col < row whose pair is inside, deciding the unsure ones exactly.

    ``mask``: a boolean array of G's shape to work in (overwritten).
    """
    # flatnonzero of the whole mask, then the lower half: one flat pass, where 2-d np.nonzero
    # and np.tril walk the block several times
    r, c = np.divmod(np.flatnonzero(np.greater(G, -margin, out=mask)), G.shape[1])
    lower = c < r
    r, c = r[lower], c[lower]
    g = G[r, c]
    inside = g > margin
    unsure = np.flatnonzero(~inside)
    if unsure.size:
        inside[unsure] = exact_inside(r[unsure], c[unsure])
    return r[inside], c[inside]


def _blas_scan(X: np.ndarray, eps: float, screen_dtype: str = "auto"):
    """Algorithm 2 through blocked GEMM screens: ``(center_rows, labels)``.

    ``screen_dtype``: "auto" screens in float32 where its wider margin stays small against
    eps^2, else in float64; "float32" and "float64" force one (the result is the same).
    """
    n, d = X.shape
    exact_eps2 = eps * eps
    eps2 = exact_eps2
    shift, scale = _screen_frame(X)
    Xs = (X - shift) * scale
    eps2 = eps2 * scale * scale
    sq = np.einsum("ij,ij->i", Xs, Xs)
    # float32 screen where its margin stays small against eps^2: half the GEMM and
    # comparison traffic, and only pairs within the wider margin go to the exact test.
    # The error of the (d + 2)-term screening dot product, inputs rounded included, is
    # below 8 (d + 4) u (||x||^2 + ||c||^2 + eps^2) with u the unit roundoff (Higham 2002).
    spread = 2.0 * float(sq.max()) + eps2
    # (eps^2 itself must stay finite in float32: the data are scaled into [-1, 1], so a
    # larger eps^2 makes a single center anyway.)
    fits32 = spread < 1e30 and 8.0 * (d + 4) * 2.0**-24 * spread <= _FLOAT32_MAX_MARGIN * eps2
    dtype = np.float32 if screen_dtype == "float32" or (screen_dtype == "auto" and fits32) else np.float64
    unit = 2.0**-24 if dtype == np.float32 else 2.0**-53
    Pa = np.empty((n, d + 2), dtype=dtype)
    Pa[:, :-2] = Xs
    Pa[:, -2] = 1.0
    Pa[:, -1] = -0.5 * (sq - eps2)
    rel = max(SCREEN_REL_MARGIN, 8.0 * (d + 4) * unit)
    margin = rel * spread
    store = _CenterStore(d, dtype=dtype)
    labels = np.empty(n, dtype=np.intp)
    start, rows = 0, _MIN_BLOCK_ROWS
    while start < n:
        stop = min(n, start + rows)
        block = np.arange(start, stop)
        covered_by = np.full(stop - start, -1, dtype=np.intp)

        # 1. Earliest existing center within eps, for every point in the block.
        if store.m:
            covered_by = _earliest_center_on_threads(Pa, X, block, store, margin, exact_eps2)
        free = np.flatnonzero(covered_by < 0)
        free_fraction = max(free.size / (stop - start), 1e-3)
        if free.size > _MAX_FREE:
            # Too many uncovered points to screen pairwise: end the block early;
            # the rest is screened again against the centers this part creates.
            stop = start + int(free[_MAX_FREE])
            block, covered_by, free = block[: stop - start], covered_by[: stop - start], free[:_MAX_FREE]
        has = covered_by >= 0
        labels[block[has]] = covered_by[has]

        # 2. The uncovered points decide among themselves, in order.
        if free.size:
            g = block[free]
            F = g.size
            with scratch_array((F, F), dtype) as G, scratch_array((F, F), bool) as mask:
                np.matmul(Pa[g], _as_center_rows(Xs[g], sq[g], dtype).T, out=G)
                r, c = _pairs_inside(G, margin, lambda r, c: exact_squared_distances(
                    X[g[r]], X[g[c]]) < exact_eps2, mask=mask)
            is_center, owner = resolve_in_order(free.size, r, c)
            new_local = np.flatnonzero(is_center)
            center_label = np.empty(free.size, dtype=np.intp)
            center_label[new_local] = store.m + np.arange(new_local.size)
            labels[g] = center_label[owner]
            store.extend(Xs[g[new_local]], sq[g[new_local]], g[new_local])
        start = stop
        # Next block: within the memory budget, and expected to hold about
        # _MAX_FREE uncovered points so little screening is thrown away.
        budget_rows = DEFAULT_BLOCK_ELEMENTS // max(store.m, 1)
        rows = int(min(_MAX_BLOCK_ROWS, budget_rows, _MAX_FREE / free_fraction))
        rows = max(_MIN_BLOCK_ROWS, rows)
    return store.idx[: store.m].copy(), labels
