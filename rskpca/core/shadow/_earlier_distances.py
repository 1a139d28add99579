"""Shadows at many radii from one sigma-free table of the distances to earlier rows.

Algorithm 2 only asks, for each point, which *earlier* points lie within eps: a point
is a center iff none of its earlier neighbours within eps is one, and it joins the
earliest center among them (:func:`~rskpca.core.shadow._in_order.resolve_in_order` decides
that from the pairs). Those distances depend on neither sigma nor ell. The ell scrubbers
and the curves over ell need the shadow at 19 radii, again at every sigma; on wide data
where most rows are centers each GEMM screen runs at its flop floor against every
earlier center, so 19 screens per sigma change are a wait the user sees (``python
tests/benchmarks/bench_shadow_table.py --usps PATH`` measures both ways). So the squared distances of all pairs are computed once per data set (one blocked
GEMM, kept in float32 as a packed lower triangle: row ``i`` holds its distances to rows
``0..i-1``), and a shadow at any eps is read off them: one comparison per pair, then
the in-order resolution of the pairs found.

Decisions use the shadow's own float64 predicate on original coordinates
(:func:`~rskpca.core.shadow.exact_squared_distances`) for every pair the table
cannot settle within its rounding margin, so the result is the scan's to the bit.
"""

from __future__ import annotations

import numpy as np

from rskpca.core.validation import check_array_2d
from rskpca.core.block_sizes import DEFAULT_BLOCK_ELEMENTS
from rskpca.core.shadow._in_order import resolve_in_order
from rskpca.core.shadow._predicate import exact_squared_distances
from rskpca.core.shadow._screen import _screen_frame

__all__ = ["EarlierDistances", "MAX_ROWS", "MIN_FEATURES", "pays_off"]

#: Rows up to which the table is offered: n (n - 1) / 2 float32 values, 128 MB at 8,000 rows.
MAX_ROWS = 8_000
#: Features from which a shadow read off the table beats the screen: the screen's cost per pair grows
#: with d, the table's does not (the 19 shadows of the app's ell grid: several times faster on usps,
#: d = 256, and digits, d = 64; mixed on pendigits, d = 16; ``python tests/benchmarks/bench_shadow_table.py
#: --usps PATH --pendigits PATH``).
MIN_FEATURES = 32
#: Pairs within eps above which :meth:`EarlierDistances.shadow` declines: the data are dense at that
#: eps (m much below n), where the blocked screen is fast and resolving millions of pairs is not.
MAX_PAIRS = 2_000_000
#: ... and above this many pairs per row and feature: resolving a pair costs the same whatever d,
#: screening a (point, center) pair about a quarter of that per feature, and a scan screens fewer
#: pairs the more there are within eps (m falls). ``python tests/benchmarks/bench_shadow_table.py
#: --usps PATH --pendigits PATH`` times both ways where the table declines (as MIN_FEATURES).
PAIRS_PER_ROW_AND_FEATURE = 0.5
# Relative error of a stored float32 value (rounding to float32, with room to spare).
_STORE_REL = 2.0**-22


def pays_off(n: int, d: int) -> bool:
    """Whether shadows on data of this shape should be read off an :class:`EarlierDistances` table."""
    return 2 <= n <= MAX_ROWS and d >= MIN_FEATURES


class EarlierDistances:
    """Squared distances from every row of X to every earlier row, for shadows at any radius.

    Parameters
    ----------
    X : ndarray of shape (n, d), float64, finite

    Examples
    --------
    >>> X = np.array([[0.0], [0.1], [1.0], [1.05], [5.0]])
    >>> table = EarlierDistances(X)
    >>> rows, labels = table.shadow(0.25)
    >>> rows.tolist(), labels.tolist()
    ([0, 2, 4], [0, 0, 1, 1, 2])
    """

    def __init__(self, X):
        # The table's own read-only copy: shadows read off it refer to these rows, and read their
        # centers from them only when asked (ShadowResult.centers).
        self.X = np.array(check_array_2d(X, name="X"), dtype=np.float64, order="C", copy=True)
        self.X.setflags(write=False)
        n, d = self.X.shape
        shift, scale = _screen_frame(self.X) if n else (0.0, 1.0)
        Xs = (self.X - shift) * scale
        sq = np.einsum("ij,ij->i", Xs, Xs)
        self._scale2 = float(scale) ** 2
        # |GEMM squared distance - true one|, in scaled units (Higham 2002, as the screen's margin)
        self._slack = 8.0 * (d + 4) * 2.0**-53 * 4.0 * float(sq.max() if n else 0.0)
        #: Row i's distances to rows 0..i-1 start at i (i - 1) / 2 of the packed table.
        self.starts = np.arange(n + 1, dtype=np.int64) * np.arange(-1, n, dtype=np.int64) // 2
        self.starts[0] = 0
        self._kept = None  # the last candidate pairs found (see _candidates)
        self.packed = np.empty(max(int(self.starts[-1]), 0), dtype=np.float32)
        step = int(max(1, DEFAULT_BLOCK_ELEMENTS // max(n, 1)))
        for start in range(1, n, step):
            stop = min(n, start + step)
            G = Xs[start:stop] @ Xs[:stop].T
            G *= -2.0
            G += sq[start:stop, None]
            G += sq[None, :stop]
            # row i keeps columns 0..i-1; taken row by row, they are the packed table's next stretch
            earlier = np.arange(stop)[None, :] < np.arange(start, stop)[:, None]
            self.packed[self.starts[start]:self.starts[stop]] = G[earlier]

    def _candidates(self, high: np.float32):
        """``(values, later, earlier)`` of the stored pairs below ``high``, or None above the limits.

        The last set found is kept: the ell grid asks for decreasing eps, and a smaller eps's
        candidates are a subset of a larger one's, so all but the first filter the kept pairs
        instead of reading the whole table (a shared table may be asked from several sessions at
        once: the kept set is swapped whole, so a race costs work, never a wrong pair).
        """
        n, d = self.X.shape
        limit = min(MAX_PAIRS, PAIRS_PER_ROW_AND_FEATURE * n * d)
        kept = self._kept
        if kept is not None and high <= kept[0]:
            sel = kept[1] < high
            return (kept[1][sel], kept[2][sel], kept[3][sel]) if np.count_nonzero(sel) <= limit else None
        below = self.packed < high
        if np.count_nonzero(below) > limit:
            return None
        flat = np.flatnonzero(below)
        later = np.searchsorted(self.starts, flat, side="right") - 1
        found = (self.packed[flat], later, flat - self.starts[later])
        self._kept = (high, *found)
        return found

    def pairs_within(self, eps: float):
        """``(later, earlier)``: every pair of rows within eps (exact predicate), or None above the limits."""
        eps2 = float(eps) * float(eps)
        target = eps2 * self._scale2
        # Both clamped to float32's largest value in float64 before they meet float32 values (an overflow
        # warning otherwise, seen with radii near float64's range): a clamped low only sends more pairs to
        # the exact test.
        top = float(np.finfo(np.float32).max)
        high = np.float32(min(target * (1.0 + _STORE_REL) + self._slack, top))
        low = min(target * (1.0 - _STORE_REL) - self._slack, top)
        found = self._candidates(high)
        if found is None:
            return None
        values, later, earlier = found
        unsure = np.flatnonzero(values >= low)
        if unsure.size:
            inside = exact_squared_distances(self.X[later[unsure]], self.X[earlier[unsure]]) < eps2
            keep = np.ones(values.size, dtype=bool)
            keep[unsure[~inside]] = False
            later, earlier = later[keep], earlier[keep]
        return later, earlier

    def shadow(self, eps: float):
        """Algorithm 2 at radius ``eps``: ``(center rows, labels)``, or None above the limits on pairs."""
        pairs = self.pairs_within(eps)
        if pairs is None:
            return None
        n = self.X.shape[0]
        is_center, owner = resolve_in_order(n, *pairs)
        rows = np.flatnonzero(is_center)
        rank = np.full(n, -1, dtype=np.intp)
        rank[rows] = np.arange(rows.size)
        return rows, rank[owner]
