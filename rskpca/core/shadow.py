"""Shadow center selection (Algorithm 2 of Kingravi, Vela & Gray, 2013).

Points are visited in order. A point becomes a center iff no existing center
lies strictly within ``eps = sigma / ell`` of it; every other point joins the
*earliest-created* center within ``eps``. This is Algorithm 2 read one point at
a time: the algorithm's "first remaining element" is exactly the first point
not yet absorbed, and a point is absorbed by the first center that covers it.

The predicate is fixed so results are reproducible to the bit:
``sum((x - c) ** 2) < eps ** 2`` in float64, where the sum runs over the
feature axis of a C-contiguous ``(k, d)`` difference array
(:func:`exact_squared_distances`). Two fast paths find the candidate pairs and
every decision is then taken with that exact predicate, so both agree with the
literal algorithm even on exact and near ties:

* ``"blas"`` (any d): points are taken in blocks; one GEMM per block screens
  the block against the existing centers (``(eps^2 - ||x - c||^2) / 2 > 0``, with
  the norms folded into the GEMM as two extra columns), and every pair
  that the screen cannot rule out -- its value within a rounding margin of the
  threshold or beyond it -- is re-decided exactly. Its cost is the floor
  ``2 n m d`` flops plus O(n) work per block.
* ``"grid"`` (d <= 3): a hash grid of cell side slightly above eps. A center
  within eps of a point lies in one of the ``3^d`` cells around it, and a cell
  holds at most ``2^d`` eps-separated centers, so each point checks a bounded
  number of candidates: the cost stops growing with m.

Inside a block, the points that no existing center covers decide among
themselves in visiting order (:func:`_resolve_in_order`): a few vectorised
propagation rounds settle almost all of them, a short Python loop the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_limits

from rskpca.core._validation import check_array_2d, check_positive
from rskpca.core.kernels import DEFAULT_BLOCK_ELEMENTS, get_kernel, resolve_sigma

__all__ = ["ShadowResult", "shadow_centers", "exact_squared_distances", "earliest_center_within",
           "SHADOW_ALGORITHMS", "GRID_MAX_DIM", "SCREEN_REL_MARGIN"]

#: Accepted values of ``shadow_centers(..., algorithm=)``.
SHADOW_ALGORITHMS = ("auto", "blas", "grid")
#: The grid is offered up to this dimension (3^d neighbour cells, 2^d centers per cell).
GRID_MAX_DIM = 3
#: "auto" (d <= 3) screens until this many centers exist, then the grid takes over. The
#: screen's cost per point grows with m, the grid's does not; these are the measured
#: crossovers (``python -m rskpca.evaluation.bench_speed``, shadow-path table).
GRID_SWITCH_M = {1: 200, 2: 2000, 3: 8000}

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
# Width of the first column chunk of centers screened (doubling after it).
_FIRST_CHUNK = 64
# Uncovered points resolved together in one block: their pairwise screen is F x F.
_MAX_FREE = 1024
# Grid cells are this much wider than eps so rounding in floor(x / side) can never
# put two points closer than eps into non-adjacent cells.
_GRID_SIDE_FACTOR = 1.0 + 1e-6
# Largest cell coordinate for which that rounding argument holds (about 2^-52 * 2^30 << 1e-6).
_GRID_MAX_COORD = 2**30
# Vectorised propagation rounds before the in-order Python loop takes over.
_PROPAGATION_ROUNDS = 6
# Up to this n * d the scan runs on one BLAS thread: its GEMMs are too small to share,
# and threads that wait on each other cost more than they give on a busy 2-core machine.
_SINGLE_THREAD_MAX_ND = 200_000


@dataclass(frozen=True)
class ShadowResult:
    """Output of :func:`shadow_centers`.

    Attributes
    ----------
    centers : ndarray of shape (m, d)
        The shadow centers (rows of X, in creation order).
    center_indices : ndarray of shape (m,)
        Row index in X of each center.
    weights : ndarray of shape (m,)
        Number of rows absorbed by each center (including itself); sums to n.
    labels : ndarray of shape (n,)
        Center (in ``[0, m)``) that each row of X belongs to.
    eps : float
        The shadow radius ``sigma / ell``.
    sigma, ell : float
        The parameters used.
    kernel : str
        Kernel name (it only matters for the bounds; selection uses eps).
    algorithm : str
        The path that ran: ``"grid"``, ``"blas"`` or ``"blas+grid"`` (the screen, then
        the grid once m passed ``GRID_SWITCH_M[d]``); the results are identical.
    """

    centers: np.ndarray
    center_indices: np.ndarray
    weights: np.ndarray
    labels: np.ndarray
    eps: float
    sigma: float
    ell: float
    kernel: str
    algorithm: str = "blas"

    @property
    def m(self) -> int:
        """Number of centers."""
        return int(self.center_indices.shape[0])

    @property
    def n(self) -> int:
        """Number of points."""
        return int(self.labels.shape[0])

    def distances_to_centers(self, X) -> np.ndarray:
        """``||x_i - c_{alpha(i)}||`` for every row of the X this was computed on."""
        X = np.asarray(X, dtype=np.float64)
        diff = X - self.centers[self.labels]
        return np.sqrt(np.einsum("ij,ij->i", diff, diff))


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


def _first_per_row(rows: np.ndarray, cols: np.ndarray, n_rows: int) -> np.ndarray:
    """For each row, the smallest col paired with it (-1 if none)."""
    first = np.full(n_rows, np.iinfo(np.intp).max, dtype=np.intp)
    np.minimum.at(first, rows, cols)
    first[first == np.iinfo(np.intp).max] = -1
    return first


def _resolve_in_order(k: int, later: np.ndarray, earlier: np.ndarray):
    """Algorithm 2 restricted to k points that no older center covers.

    ``(later[t], earlier[t])`` lists every pair within eps with
    ``earlier < later`` (local visiting order). Returns ``is_center`` (k,) and
    ``owner`` (k,): the local index of the earliest center covering each point
    (itself for a center). A point is a center iff none of its earlier
    neighbours is; most points settle in a few vectorised rounds (a point whose
    earlier neighbours are all settled settles next), the remaining chains run
    through a plain loop in visiting order.
    """
    owner = np.arange(k)
    if later.size == 0:
        return np.ones(k, dtype=bool), owner
    state = np.ones(k, dtype=np.int8)  # 1 center, 0 absorbed, -1 not yet known
    state[later] = -1
    for _ in range(_PROPAGATION_ROUNDS):
        unknown = state == -1
        if not unknown.any():
            break
        s_earlier = state[earlier]
        covered = np.zeros(k, dtype=bool)
        covered[later[s_earlier == 1]] = True
        waiting = np.zeros(k, dtype=bool)
        waiting[later[s_earlier == -1]] = True
        state[unknown & covered] = 0
        state[unknown & ~covered & ~waiting] = 1
    unknown = np.flatnonzero(state == -1)
    if unknown.size:
        # Long dependency chains (e.g. sorted 1-d data): finish in visiting order.
        order = np.lexsort((earlier, later))
        later_s, earlier_s = later[order], earlier[order]
        starts = np.searchsorted(later_s, unknown, side="left").tolist()
        stops = np.searchsorted(later_s, unknown, side="right").tolist()
        earlier_l = earlier_s.tolist()
        st = state.tolist()
        for j, a, b in zip(unknown.tolist(), starts, stops):
            st[j] = 0 if any(st[i] == 1 for i in earlier_l[a:b]) else 1
        state = np.asarray(st, dtype=np.int8)
    is_center = state == 1
    absorbed_by_center = is_center[earlier]
    first = _first_per_row(later[absorbed_by_center], earlier[absorbed_by_center], k)
    owner[~is_center] = first[~is_center]
    return is_center, owner


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


def _earliest_inside(G: np.ndarray, margin: float, exact_inside) -> np.ndarray:
    """Per row of screened values ``G`` (about ``(eps^2 - d^2) / 2``), the first column inside.

    A value above ``margin`` is inside for sure, one below ``-margin`` outside for sure;
    only values in between go to ``exact_inside(rows, cols)``. Rows scan their candidates
    left to right, so pairs beyond a row's first hit are never looked at: the work after
    the GEMM is one comparison and one argmax per value, not one exact distance per pair.
    Returns -1 for rows with no center inside.
    """
    cand = G > -margin
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
    leaves the screen as soon as a chunk covers it: the old centers of a region absorb
    most of its later points, so most rows stop after the first chunk and the work falls
    below the full ``rows x m`` GEMM.
    """
    covered_by = np.full(block.size, -1, dtype=np.intp)
    rows = np.arange(block.size)
    P = Pa[block]
    c0, width = 0, _FIRST_CHUNK
    while c0 < store.m and rows.size:
        c1 = min(store.m, c0 + width)
        G = P @ store.A[c0:c1].T
        first = _earliest_inside(G, margin, lambda r, c: exact_squared_distances(
            X[block[rows[r]]], center_rows[store.idx[c0 + c]]) < exact_eps2)
        hit = first >= 0
        covered_by[rows[hit]] = c0 + first[hit]
        rows, P = rows[~hit], P[~hit]
        c0, width = c1, 2 * width
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
    shift = Z.mean(axis=0)
    top = max(float(np.abs(A - shift).max()) for A in (Z, *others))
    scale = 2.0 ** -np.frexp(top)[1] if top > 0 else 1.0
    return shift, scale


def _point_rows(Xs: np.ndarray, sq: np.ndarray, eps2: float) -> np.ndarray:
    """``[x, 1, -(||x||^2 - eps^2) / 2]`` per row: the GEMM partner of :func:`_as_center_rows`."""
    Pa = np.empty((Xs.shape[0], Xs.shape[1] + 2))
    Pa[:, :-2] = Xs
    Pa[:, -2] = 1.0
    Pa[:, -1] = -0.5 * (sq - eps2)
    return Pa


def earliest_center_within(X, centers, eps: float) -> np.ndarray:
    """Per row of X, the first row of ``centers`` strictly within ``eps`` (-1 if none).

    The screen of the shadow scan (one GEMM per column chunk of centers, rows
    leaving as soon as a chunk covers them, pairs within the rounding margin
    re-decided with :func:`exact_squared_distances`), so the decision is the
    shadow's own float64 predicate ``sum((c - x) ** 2) < eps ** 2``. With
    ``centers`` the first shadow centers of a data set in creation order,
    a row that gets ``j >= 0`` is labelled ``j`` by Algorithm 2 and a row
    that gets -1 is not covered by any of them: the step that makes the
    streaming (:mod:`rskpca.core.streaming_shadow`) and distributed shadows
    exact.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    centers : ndarray of shape (m, d)
    eps : float

    Returns
    -------
    ndarray of shape (n,), int

    Examples
    --------
    Ties at exactly eps are outside (strict ``<``): 2.0 lies exactly 1 from 1.0 and from 3.0.

    >>> X, C = np.array([[0.5], [1.9], [2.0], [9.0]]), np.array([[0.0], [1.0], [3.0]])
    >>> earliest_center_within(X, C, 1.0).tolist()
    [0, 1, -1, -1]
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


def _pairs_inside(G: np.ndarray, margin: float, exact_inside):
    """All (row, col) with col < row whose pair is inside, deciding the unsure ones exactly."""
    r, c = np.nonzero(np.tril(G > -margin, -1))
    g = G[r, c]
    inside = g > margin
    unsure = np.flatnonzero(~inside)
    if unsure.size:
        inside[unsure] = exact_inside(r[unsure], c[unsure])
    return r[inside], c[inside]


def _blas_scan(X: np.ndarray, eps: float, screen_dtype: str = "auto", stop_at_m: int | None = None):
    """Algorithm 2 through blocked GEMM screens: (center_rows, labels, rows done).

    With ``stop_at_m`` the scan stops after the block in which the m-th center appears
    and reports how many rows it decided; the grid finishes the rest (``_grid_scan(resume=)``).
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
            covered_by = _earliest_center(Pa, X, block, store, margin, exact_eps2, X)
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
            G = Pa[g] @ _as_center_rows(Xs[g], sq[g], dtype).T
            r, c = _pairs_inside(G, margin, lambda r, c: exact_squared_distances(
                X[g[r]], X[g[c]]) < exact_eps2)
            is_center, owner = _resolve_in_order(free.size, r, c)
            new_local = np.flatnonzero(is_center)
            center_label = np.empty(free.size, dtype=np.intp)
            center_label[new_local] = store.m + np.arange(new_local.size)
            labels[g] = center_label[owner]
            store.extend(Xs[g[new_local]], sq[g[new_local]], g[new_local])
        start = stop
        if stop_at_m is not None and store.m >= stop_at_m and start < n:
            return store.idx[: store.m].copy(), labels, start
        # Next block: within the memory budget, and expected to hold about
        # _MAX_FREE uncovered points so little screening is thrown away.
        budget_rows = DEFAULT_BLOCK_ELEMENTS // max(store.m, 1)
        rows = int(min(_MAX_BLOCK_ROWS, budget_rows, _MAX_FREE / free_fraction))
        rows = max(_MIN_BLOCK_ROWS, rows)
    return store.idx[: store.m].copy(), labels, n


def _grid_cells(X: np.ndarray, eps: float):
    """Integer cell coordinates (n, d) with side just above eps, or None if they would overflow."""
    side = eps * _GRID_SIDE_FACTOR
    span = (X.max(axis=0) - X.min(axis=0)) / side
    if not np.all(span < _GRID_MAX_COORD):
        return None
    cells = np.floor((X - X.min(axis=0)) / side).astype(np.int64)
    extent = cells.max(axis=0) + 3  # +3: neighbours at -1 and +1 stay inside after shifting by 1
    if float(np.prod(extent.astype(np.float64))) >= 2.0**62:
        return None
    return cells + 1, extent


def _grid_scan(X: np.ndarray, eps: float, cells: np.ndarray, extent: np.ndarray, resume=None):
    """Algorithm 2 on a hash grid (d <= 3): (center_rows, labels).

    ``resume = (center_rows, labels, start)`` continues a scan that another path ran on
    the rows before ``start``: its centers are put in the table, then the scan goes on.
    """
    n, d = X.shape
    eps2 = eps * eps
    strides = np.cumprod(np.r_[1, extent[:-1]]).astype(np.int64)
    keys = cells @ strides
    ukeys, cell_of = np.unique(keys, return_inverse=True)
    cell_of = cell_of.ravel()
    offsets = np.stack(np.meshgrid(*[[-1, 0, 1]] * d, indexing="ij"), -1).reshape(-1, d) @ strides
    nb_keys = ukeys[:, None] + offsets[None, :]
    pos = np.minimum(np.searchsorted(ukeys, nb_keys), ukeys.size - 1)
    neighbours = np.where(ukeys[pos] == nb_keys, pos, -1)  # (U, 3^d) cell ids, -1: no points there
    neighbours_of_empty = np.full((1, neighbours.shape[1]), -1)
    neighbours = np.vstack([neighbours, neighbours_of_empty])  # row U: "no cell"

    # Centers per cell: at most 2^d eps-separated points fit in a cell of side ~eps
    # for d <= 3 (its 2^d half-side sub-cubes have diameter < eps); the table grows if not.
    per_cell = 2**d
    table = np.full((ukeys.size + 1, per_cell), -1, dtype=np.intp)  # row U stays empty
    count = np.zeros(ukeys.size + 1, dtype=np.intp)
    center_rows = np.empty(n, dtype=np.intp)  # row of X of each center, in creation order
    m = 0
    labels = np.empty(n, dtype=np.intp)

    def insert(new_rows, m, table, per_cell):
        """File centers ``m, m+1, ...`` (rows ``new_rows`` of X) under their cells."""
        new_ids = m + np.arange(new_rows.size)
        ncell = cell_of[new_rows]
        srt = np.argsort(ncell, kind="stable")
        ncell, new_ids = ncell[srt], new_ids[srt]
        group_start = np.searchsorted(ncell, ncell, side="left")
        slot = count[ncell] + (np.arange(ncell.size) - group_start)
        if slot.size and int(slot.max()) >= per_cell:
            grown = np.full((table.shape[0], int(slot.max()) + 1), -1, dtype=np.intp)
            grown[:, :per_cell] = table
            table, per_cell = grown, grown.shape[1]
        table[ncell, slot] = new_ids
        np.add.at(count, ncell, 1)
        center_rows[m:m + new_rows.size] = new_rows
        return m + new_rows.size, table, per_cell

    start = 0
    if resume is not None:
        done_rows, done_labels, start = resume
        labels[:start] = done_labels[:start]
        m, table, per_cell = insert(np.asarray(done_rows, dtype=np.intp), 0, table, per_cell)
    rows = 4096
    while start < n:
        stop = min(n, start + rows)
        block = np.arange(start, stop)
        bcell = cell_of[start:stop]

        # 1. Existing centers in the 3^d surrounding cells.
        cand = table[neighbours[bcell]].reshape(stop - start, -1)
        r, col = np.nonzero(cand >= 0)
        cid = cand[r, col]
        inside = exact_squared_distances(X[block[r]], X[center_rows[cid]]) < eps2
        covered_by = _first_per_row(r[inside], cid[inside], stop - start)
        free = np.flatnonzero(covered_by < 0)
        if free.size > _MAX_FREE:
            stop = start + int(free[_MAX_FREE])
            block, covered_by, free = block[: stop - start], covered_by[: stop - start], free[:_MAX_FREE]
        has = covered_by >= 0
        labels[block[has]] = covered_by[has]

        # 2. Uncovered points against each other, through the same neighbour cells.
        if free.size:
            g = block[free]
            fcell = cell_of[g]
            order = np.argsort(fcell, kind="stable")
            sorted_cells = fcell[order]
            nb = neighbours[fcell]  # (F, 3^d)
            lo = np.searchsorted(sorted_cells, nb, side="left")
            hi = np.searchsorted(sorted_cells, nb, side="right")
            lo = np.where(nb >= 0, lo, 0)
            cnt = np.where(nb >= 0, hi - lo, 0).ravel()
            total = int(cnt.sum())
            a = np.repeat(np.repeat(np.arange(free.size), nb.shape[1]), cnt)
            first = np.repeat(lo.ravel(), cnt)
            within = np.arange(total) - np.repeat(np.cumsum(cnt) - cnt, cnt)
            b = order[first + within]
            keep = b < a
            a, b = a[keep], b[keep]
            inside = exact_squared_distances(X[g[a]], X[g[b]]) < eps2
            is_center, owner = _resolve_in_order(free.size, a[inside], b[inside])
            new_local = np.flatnonzero(is_center)
            center_label = np.empty(free.size, dtype=np.intp)
            center_label[new_local] = m + np.arange(new_local.size)
            labels[g] = center_label[owner]
            m, table, per_cell = insert(g[new_local], m, table, per_cell)
        start = stop
    return center_rows[:m].copy(), labels


def _shadow_scan(X: np.ndarray, eps: float, algorithm: str = "auto"):
    """Fast Algorithm 2 on float64 X in visiting order: (center_rows, labels, algorithm used)."""
    threads = 1 if X.size <= _SINGLE_THREAD_MAX_ND else None
    with threadpool_limits(limits=threads, user_api="blas"):
        return _dispatch_backend(X, eps, algorithm)


def _dispatch_backend(X: np.ndarray, eps: float, algorithm: str):
    """Run the grid or the BLAS scan, as ``algorithm`` asks and the data allows."""
    d = X.shape[1]
    if algorithm == "blas" or d > GRID_MAX_DIM:
        if algorithm == "grid":
            raise ValueError(
                f"algorithm='grid' works for at most {GRID_MAX_DIM} features (3^d neighbour cells); "
                f"X has {d}. Use algorithm='blas' (or 'auto', which picks it)."
            )
        return (*_blas_scan(X, eps)[:2], "blas")
    if algorithm == "grid":
        grid = _grid_cells(X, eps)
        if grid is None:
            raise ValueError(
                "algorithm='grid' needs the data span divided by eps = sigma/ell below 2^30 cells per "
                "axis; this data is too spread out for that eps. Use algorithm='blas' (or 'auto')."
            )
        return (*_grid_scan(X, eps, *grid), "grid")
    # auto: the screen costs O(m d) per point and the grid O(3^d) with a much larger
    # constant, so the screen runs first and hands over to the grid once m passes the
    # measured crossover; the grid resumes where the screen stopped (nothing is redone).
    rows, labels, done = _blas_scan(X, eps, stop_at_m=GRID_SWITCH_M[d])
    if done == X.shape[0]:
        return rows, labels, "blas"
    grid = _grid_cells(X, eps)
    if grid is None:  # too spread out for integer cells: the screen does it all
        return (*_blas_scan(X, eps)[:2], "blas")
    return (*_grid_scan(X, eps, *grid, resume=(rows, labels, done)), "blas+grid")


def shadow_centers(X, *, sigma: float | str, ell: float, kernel: str = "gaussian",
                   order: str = "input", random_state=None, algorithm: str = "auto") -> ShadowResult:
    """Select shadow centers with ``eps = sigma / ell`` (Algorithm 2).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Real data; NaN, inf, complex values and text are refused with a message
        naming the fix.
    sigma : float or "median"
        Kernel bandwidth (``k = exp(-||x-y||^2 / sigma^2)`` for the Gaussian).
        "median": the median pairwise distance on a subsample seeded by
        ``random_state``, as the estimators' ``sigma="median"`` (the result's
        ``sigma`` holds the value).
    ell : float
        Shadow parameter; the radius is ``sigma / ell``. Larger ell gives more centers.
    kernel : {"gaussian", "laplacian"}, default="gaussian"
        Recorded for the bounds; the selection only depends on eps.
    order : {"input", "random"}, default="input"
        Visit points in input order (the paper) or in a random order drawn from
        ``random_state``. Indices and labels always refer to the original rows.
    random_state : int, RandomState instance or None, default=None
        Seed for ``order="random"`` and ``sigma="median"``.
    algorithm : {"auto", "blas", "grid"}, default="auto"
        How candidate pairs are found; the result is identical. "grid" (a hash
        grid, cost independent of m) is for at most 3 features; "blas" (blocked
        GEMM screens) for any; "auto" starts with the screen and, for at most 3
        features, hands over to the grid once ``GRID_SWITCH_M[d]`` centers exist.

    Returns
    -------
    ShadowResult
        ``centers``, ``center_indices``, ``weights`` (sum n), ``labels``, ``eps``,
        ``algorithm``.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import shadow_centers
    >>> X = np.array([[0.0], [0.1], [1.0], [1.05], [5.0]])
    >>> s = shadow_centers(X, sigma=1.0, ell=4.0)
    >>> s.center_indices.tolist(), s.weights.tolist(), s.labels.tolist()
    ([0, 2, 4], [2, 2, 1], [0, 0, 1, 1, 2])
    >>> s.algorithm, shadow_centers(X, sigma=1.0, ell=4.0, algorithm="blas").labels.tolist()
    ('blas', [0, 0, 1, 1, 2])
    """
    X = check_array_2d(X, name="X")
    sigma = resolve_sigma(sigma, X, random_state)
    ell = check_positive(ell, "ell")
    get_kernel(kernel)
    eps = sigma / ell
    if not np.isfinite(eps * eps) or eps * eps == 0.0:
        raise ValueError(
            f"eps = sigma / ell = {eps!r} has a square that is 0 or overflows in float64; "
            "choose sigma and ell so that sigma / ell lies roughly in [1e-150, 1e150]."
        )
    if order not in ("input", "random"):
        raise ValueError(f"order must be 'input' or 'random', got {order!r}.")
    if algorithm not in SHADOW_ALGORITHMS:
        raise ValueError(f"algorithm must be one of {SHADOW_ALGORITHMS}, got {algorithm!r}.")
    n = X.shape[0]
    if order == "random":
        perm = check_random_state(random_state).permutation(n)
        idx_p, labels_p, used = _shadow_scan(np.ascontiguousarray(X[perm]), eps, algorithm)
        center_indices = perm[idx_p]
        labels = np.empty(n, dtype=np.intp)
        labels[perm] = labels_p
    else:
        center_indices, labels, used = _shadow_scan(X, eps, algorithm)
    weights = np.bincount(labels, minlength=center_indices.shape[0])
    return ShadowResult(
        centers=X[center_indices].copy(),
        center_indices=center_indices,
        weights=weights,
        labels=labels,
        eps=float(eps),
        sigma=float(sigma),
        ell=float(ell),
        kernel=get_kernel(kernel).name,
        algorithm=used,
    )
