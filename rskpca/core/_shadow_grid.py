"""The hash-grid shadow scan (Algorithm 2 for d <= 3): cost per point bounded whatever m.

A center within eps of a point lies in one of the ``3^d`` cells of side just above
eps around it, and a cell holds at most ``2^d`` eps-separated centers. Decisions use
the exact predicate of :mod:`rskpca.core._shadow_screen`.
"""

from __future__ import annotations

import numpy as np

from rskpca.core._shadow_resolve import _first_per_row, _resolve_in_order
from rskpca.core._shadow_screen import _MAX_FREE, exact_squared_distances

# Grid cells are this much wider than eps so rounding in floor(x / side) can never
# put two points closer than eps into non-adjacent cells.
_GRID_SIDE_FACTOR = 1.0 + 1e-6
# Largest cell coordinate for which that rounding argument holds (about 2^-52 * 2^30 << 1e-6).
_GRID_MAX_COORD = 2**30


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
        r, col = np.divmod(np.flatnonzero(cand >= 0), cand.shape[1])  # 2-d nonzero is ~10x slower
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
