"""Points no older center covers, decided among themselves in visiting order (Algorithm 2's inner step).

The GEMM screen (:mod:`~rskpca.core.shadow._screen`) and the table of earlier distances
(:mod:`~rskpca.core.shadow._earlier_distances`) find the pairs within eps among points that
no older center covers and hand them here: a point becomes a center iff none of its earlier
neighbours is one, which most points settle in a few vectorised rounds.
"""

from __future__ import annotations

import numpy as np

__all__ = ["first_per_row", "resolve_in_order"]

# Vectorised propagation rounds before the in-order Python loop takes over.
_PROPAGATION_ROUNDS = 6


def first_per_row(rows: np.ndarray, cols: np.ndarray, n_rows: int) -> np.ndarray:
    """For each row, the smallest col paired with it (-1 if none)."""
    first = np.full(n_rows, np.iinfo(np.intp).max, dtype=np.intp)
    np.minimum.at(first, rows, cols)
    first[first == np.iinfo(np.intp).max] = -1
    return first


def resolve_in_order(k: int, later: np.ndarray, earlier: np.ndarray):
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
        # Long dependency chains (e.g. sorted 1-d data): finish in visiting order, sorting only the pairs
        # of the points still unknown (sorting all pairs would cost more than resolving the few points left).
        rest = state[later] == -1
        later_r, earlier_r = later[rest], earlier[rest]
        order = np.lexsort((earlier_r, later_r))
        later_s, earlier_s = later_r[order], earlier_r[order]
        starts = np.searchsorted(later_s, unknown, side="left").tolist()
        stops = np.searchsorted(later_s, unknown, side="right").tolist()
        earlier_l = earlier_s.tolist()
        st = state.tolist()
        for j, a, b in zip(unknown.tolist(), starts, stops):
            st[j] = 0 if any(st[i] == 1 for i in earlier_l[a:b]) else 1
        state = np.asarray(st, dtype=np.int8)
    is_center = state == 1
    absorbed_by_center = is_center[earlier]
    first = first_per_row(later[absorbed_by_center], earlier[absorbed_by_center], k)
    owner[~is_center] = first[~is_center]
    return is_center, owner
